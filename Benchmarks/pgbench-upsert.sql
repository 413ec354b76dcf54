-- The sync server's write, as pgbench runs it: one conditional upsert of a device's head per
-- transaction, over 50 users, 5 timelines and 3 devices each, keys growing as sequences do.
\set user random(1, 50)
\set timeline random(0, 4)
\set device random(0, 2)
\set clock random(1, 2000000000)
INSERT INTO position_head (user_id, account, timeline, device, head_key, changed_at, record)
VALUES (:user, 'me', 't' || :timeline, 'd' || :device, int8send(:clock) || int8send(:clock), :clock, '{"position":{"postId":"p"}}')
ON CONFLICT (user_id, account, timeline, device) DO UPDATE SET head_key = EXCLUDED.head_key, changed_at = EXCLUDED.changed_at,
    record = EXCLUDED.record
WHERE EXCLUDED.head_key > position_head.head_key;
