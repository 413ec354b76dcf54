-- The sync server's write, as pgbench runs it: one conditional upsert of a device's head per
-- transaction, over 50 users, 5 timelines and 3 devices each. The key starts with the clock in
-- microseconds, so it grows as a device's sequence does and every upsert replaces the head, as
-- every write of the server's benchmark does (random keys would soon lose to the stored ones
-- and measure upserts that write nothing).
\set user random(1, 50)
\set timeline random(0, 4)
\set device random(0, 2)
\set clock random(1, 2000000000)
INSERT INTO position_head (user_id, account, timeline, device, head_key, changed_at, record)
VALUES (:user, 'me', 't' || :timeline, 'd' || :device, int8send((extract(epoch FROM clock_timestamp()) * 1000000)::bigint) || int8send(:clock),
        :clock, '{"position":{"postId":"p"}}')
ON CONFLICT (user_id, account, timeline, device) DO UPDATE SET head_key = EXCLUDED.head_key, changed_at = EXCLUDED.changed_at,
    record = EXCLUDED.record
WHERE EXCLUDED.head_key > position_head.head_key;
