#!/usr/bin/env python3
"""Writes the Mastodon- and Bluesky-shaped API answers the loading tests serve.

The posts come from ../posts/home-timeline-2022-12-07.jsonl (real posts, see its README);
the envelopes follow the documented entities: Mastodon's Status
(https://docs.joinmastodon.org/entities/Status/) and Bluesky's
app.bsky.feed.getTimeline output (app.bsky.feed.defs#feedViewPost).

Each API has a first answer (the newest 40 posts) and a refreshed one, as a server would
answer a little later: two new posts on top, the fourth post edited, the seventh deleted,
and the page still 40 long, so the oldest post of the first answer falls off the page.
Run from this folder: python3 make-responses.py
"""
import hashlib
import html
import json

posts = [json.loads(line) for line in open("../posts/home-timeline-2022-12-07.jsonl", encoding="utf-8")]
first = posts[2:42]
new = [dict(posts[0]), dict(posts[1])]
edited = dict(first[3])
edited["text"] = first[3]["text"] + " (edited)"
refreshed = new + [edited if p["id"] == edited["id"] else p for p in first if p["id"] != first[6]["id"]]
refreshed = refreshed[:40]


def digest(text, digits):
    return int(hashlib.sha1(text.encode()).hexdigest(), 16) % 10**digits


def mastodon_status(post, edited_at=None):
    paragraphs = "".join("<p>" + html.escape(part, quote=False).replace("\n", "<br>") + "</p>"
                         for part in post["text"].split("\n\n"))
    account = post["author"]
    return {
        "id": post["id"],
        "created_at": post["createdAt"].replace("Z", ".000Z"),
        "in_reply_to_id": post.get("replyTo"),
        "in_reply_to_account_id": None,
        "sensitive": False,
        "spoiler_text": "",
        "visibility": "public",
        "language": None,
        "uri": f"https://mastodon.example/users/{account}/statuses/{post['id']}",
        "url": f"https://mastodon.example/@{account}/{post['id']}",
        "replies_count": 0,
        "reblogs_count": 0,
        "favourites_count": 0,
        "edited_at": edited_at,
        "content": paragraphs,
        "reblog": None,
        "account": {
            "id": str(digest(account, 17)),
            "username": account,
            "acct": account,
            "display_name": account,
            "url": f"https://mastodon.example/@{account}",
        },
        "media_attachments": [],
        "mentions": [],
        "tags": [],
        "emojis": [],
        "card": None,
        "poll": None,
    }


def bluesky_item(post):
    did = "did:plc:" + hashlib.sha1(post["author"].encode()).hexdigest()[:24]
    rkey = format(int(post["id"]) % 36**13, "x")[:13]
    return {
        "post": {
            "uri": f"at://{did}/app.bsky.feed.post/{rkey}",
            "cid": "bafyrei" + rkey.rjust(52, "a"),
            "author": {"did": did, "handle": post["author"].lower() + ".bsky.social", "displayName": post["author"]},
            "record": {"$type": "app.bsky.feed.post", "text": post["text"], "createdAt": post["createdAt"].replace("Z", ".000Z"),
                       "langs": ["en"]},
            "replyCount": 0,
            "repostCount": 0,
            "likeCount": 0,
            "indexedAt": post["createdAt"].replace("Z", ".000Z"),
            "labels": [],
        }
    }


def write(name, value):
    with open(name, "w", encoding="utf-8") as out:
        json.dump(value, out, ensure_ascii=False, indent=1)
        out.write("\n")


write("mastodon-home.json", [mastodon_status(p) for p in first])
write("mastodon-home-refreshed.json",
      [mastodon_status(p, "2022-12-07T21:40:00.000Z" if p["id"] == edited["id"] else None) for p in refreshed])
write("bluesky-timeline.json", {"feed": [bluesky_item(p) for p in first], "cursor": "1670446000000::bafyreicursor"})
write("bluesky-timeline-refreshed.json", {"feed": [bluesky_item(p) for p in refreshed], "cursor": "1670446000000::bafyreicursor"})
