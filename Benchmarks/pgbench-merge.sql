-- The sync server's whole write on PostgreSQL, as pgbench runs it: the one-head merge
-- (PostgresRegisterStorage.mergeOneStatement), which checks the device's stored head, moves the
-- user's change counter on under its row lock, and upserts the head stamped with the counter.
-- Users 1 to 50 must exist (server-bench.sh makes them); the key grows with the clock, as in
-- pgbench-upsert.sql, so every merge changes a head.
\set user random(1, 50)
\set timeline random(0, 4)
\set device random(0, 2)
\set clock random(1, 2000000000)
WITH fresh AS (
    SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM position_head
                               WHERE user_id = :user AND account = 'me' AND timeline = 't' || :timeline AND device = 'd' || :device
                                 AND head_key >= int8send((extract(epoch FROM clock_timestamp()) * 1000000)::bigint) || int8send(:clock))
), counter AS (UPDATE sync_user SET version = version + 1 WHERE id = :user AND EXISTS (SELECT 1 FROM fresh) RETURNING version),
heads AS (
    INSERT INTO position_head (user_id, account, timeline, device, head_key, changed_at, record)
    SELECT :user, 'me', 't' || :timeline, 'd' || :device, int8send((extract(epoch FROM clock_timestamp()) * 1000000)::bigint) || int8send(:clock),
           version, '{"position":{"postId":"p"}}' FROM counter
    ON CONFLICT (user_id, account, timeline, device) DO UPDATE SET head_key = EXCLUDED.head_key, changed_at = EXCLUDED.changed_at,
        record = EXCLUDED.record
    WHERE EXCLUDED.head_key > position_head.head_key
    RETURNING 1
)
SELECT (SELECT count(*) FROM heads)::bigint,
       COALESCE((SELECT version FROM counter), (SELECT version FROM sync_user WHERE id = :user), 0)::bigint;
