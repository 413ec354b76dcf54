-- The sync server's write, as pgbench runs it: one conditional upsert of a register per
-- transaction, over 50 users and 5 timelines each, keys growing as clocks do.
\set user random(1, 50)
\set timeline random(0, 4)
\set clock random(1, 2000000000)
INSERT INTO position_register (user_id, account, timeline, order_key, stamp_key, record)
VALUES (:user, 'me', 't' || :timeline, int8send(:clock), int8send(:clock), '{"position":{"postId":"p"}}')
ON CONFLICT (user_id, account, timeline) DO UPDATE SET order_key = EXCLUDED.order_key, stamp_key = EXCLUDED.stamp_key,
    record = EXCLUDED.record
WHERE EXCLUDED.order_key > position_register.order_key;
