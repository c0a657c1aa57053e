package io.fleetjobs.store;

import io.fleetjobs.model.agent.AgentProtocol.LogFollow;
import io.fleetjobs.model.logs.LogLimits;
import io.fleetjobs.model.logs.LogWindow;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Live logs in the database (V26, both tables UNLOGGED): who follows which stream ({@code log_follows}, a row per
 * reader that lasts {@link LogLimits#FOLLOW_TTL} unless renewed), and the bytes agents pushed of followed streams
 * ({@code log_chunks}, offset-keyed, at most {@link LogLimits#STORED_PER_STREAM} per stream, removed by
 * {@link #cleanup} once no one follows the stream).
 */
public final class LogStreams {
    private final JdbcClient jdbc;
    private final InstantSource clock;

    public LogStreams(JdbcClient jdbc, InstantSource clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /**
     * One stream of one replica of an attempt (replica 0 for a job of one replica): a gang's replicas run under one
     * attempt number on distinct machines, each with streams of its own.
     */
    public record Stream(UUID jobId, int attempt, int replica, String stream) {
    }

    /** The attempt as a follow needs it: where it runs, its lease epoch, when it ended (null while live). */
    public record AttemptOnMachine(String machineId, long epoch, Instant endedAt) {
    }

    public Optional<AttemptOnMachine> attempt(UUID jobId, int attempt, int replica) {
        return jdbc.sql("""
                        select machine_id, lease_epoch, case when state in ('SCHEDULED', 'RUNNING') then null
                            else coalesce(finished_at, released_at, scheduled_at) end
                        from attempts where job_id = :j and attempt = :a and replica = :r""")
                .param("j", jobId).param("a", attempt).param("r", replica)
                .query((rs, n) -> new AttemptOnMachine(rs.getString(1), rs.getLong(2), JobRows.instant(rs, 3)))
                .optional();
    }

    /** Registers or renews a reader's follow of a stream on {@code machineId}, for {@link LogLimits#FOLLOW_TTL}. */
    public void follow(UUID followerId, Stream stream, String machineId, long from) {
        Instant now = clock.instant();
        jdbc.sql("""
                        insert into log_follows (follower_id, job_id, attempt, replica, stream, machine_id, from_offset,
                            registered_at, expires_at) values (:f, :j, :a, :r, :s, :m, :from, :now, :exp)
                        on conflict (follower_id) do update set expires_at = excluded.expires_at""")
                .param("f", followerId).param("j", stream.jobId()).param("a", stream.attempt())
                .param("r", stream.replica()).param("s", stream.stream()).param("m", machineId)
                .param("from", from).param("now", JobRows.ts(now)).param("exp", JobRows.ts(now.plus(LogLimits.FOLLOW_TTL)))
                .update();
    }

    public void unfollow(UUID followerId) {
        jdbc.sql("delete from log_follows where follower_id = :f").param("f", followerId).update();
    }

    /** Every stream of the machine's attempts followed now, each once, with the earliest start any reader asked. */
    public List<LogFollow> followsOn(String machineId) {
        return jdbc.sql("""
                        select job_id, attempt, stream, min(from_offset) from log_follows
                        where machine_id = :m and expires_at > :now group by job_id, attempt, stream
                        order by job_id, attempt, stream""")
                .param("m", machineId).param("now", JobRows.ts(clock.instant()))
                .query((rs, n) -> new LogFollow(rs.getObject(1, UUID.class), rs.getInt(2), rs.getString(3), rs.getLong(4)))
                .list();
    }

    /**
     * The machines with a follow now, each with when its latest follow was registered: a heartbeat asks {@link
     * #followsOn} only of these, and those registered anew have their held heartbeats answered.
     */
    public Map<String, Instant> followedMachines() {
        Map<String, Instant> followed = new HashMap<>();
        jdbc.sql("select machine_id, max(registered_at) from log_follows where expires_at > :now group by machine_id")
                .param("now", JobRows.ts(clock.instant()))
                .query(rs -> {
                    followed.put(rs.getString(1), JobRows.instant(rs, 2));
                });
        return followed;
    }

    /** What a push of an agent came to. */
    public enum PushOutcome {
        /** Stored (or already stored); someone follows the stream. */
        FOLLOWED,
        /** Stored (or already stored); no one follows the stream any more: the agent stops shipping it. */
        NOT_FOLLOWED,
        /** The attempt is not this machine's with this epoch (a stale incarnation, another lease): nothing stored. */
        FENCED
    }

    /**
     * Stores a chunk an agent pushed, when the attempt is {@code machineId}'s with lease {@code epoch} and the push
     * comes from the machine's current {@code incarnation}, for an attempt that ran in it (live, or ended after the
     * incarnation joined: its last output comes after its end), keeping at most {@link LogLimits#STORED_PER_STREAM}
     * below the stream's furthest byte (older chunks go). The agent names the attempt by job and number; which replica
     * it is follows from the machine (a gang has one replica a machine). The incarnation is the database's, not what a
     * replica remembers of the credential: a machine reset or joined again elsewhere stops its old pushes at once.
     */
    public PushOutcome push(String machineId, long incarnation, UUID jobId, int attempt, long epoch, String stream,
            long offset, byte[] data, boolean eof) {
        Optional<Integer> replica = jdbc.sql("""
                        select a.replica from attempts a join machines m on m.id = a.machine_id
                        where a.job_id = :j and a.attempt = :a and a.machine_id = :m and a.lease_epoch = :e
                          and m.incarnation = :i and (a.released_at is null or a.released_at > m.joined_at)""")
                .param("j", jobId).param("a", attempt).param("m", machineId).param("e", epoch).param("i", incarnation)
                .query(Integer.class).optional();
        if (replica.isEmpty()) {
            return PushOutcome.FENCED;
        }
        jdbc.sql("""
                        insert into log_chunks (job_id, attempt, replica, stream, start_offset, data, eof, stored_at)
                        values (:j, :a, :r, :s, :o, :d, :eof, :now) on conflict do nothing""")
                .param("j", jobId).param("a", attempt).param("r", replica.get()).param("s", stream).param("o", offset)
                .param("d", data).param("eof", eof).param("now", JobRows.ts(clock.instant())).update();
        // below the furthest byte stored, not the one pushed: pushes going back in steps would keep every chunk
        long end = jdbc.sql("""
                        select coalesce(max(start_offset + octet_length(data)), 0) from log_chunks
                        where job_id = :j and attempt = :a and replica = :r and stream = :s""")
                .param("j", jobId).param("a", attempt).param("r", replica.get()).param("s", stream)
                .query(Long.class).single();
        jdbc.sql("""
                        delete from log_chunks where job_id = :j and attempt = :a and replica = :r and stream = :s
                            and start_offset < :keep""")
                .param("j", jobId).param("a", attempt).param("r", replica.get()).param("s", stream)
                .param("keep", LogWindow.keepFrom(Math.max(end, offset + data.length), LogLimits.STORED_PER_STREAM))
                .update();
        boolean followed = jdbc.sql("""
                        select exists (select 1 from log_follows where job_id = :j and attempt = :a and replica = :r
                            and stream = :s and expires_at > :now)""")
                .param("j", jobId).param("a", attempt).param("r", replica.get()).param("s", stream)
                .param("now", JobRows.ts(clock.instant())).query(Boolean.class).single();
        return followed ? PushOutcome.FOLLOWED : PushOutcome.NOT_FOLLOWED;
    }

    /** A stored chunk: its bytes from {@code offset}, and whether they end the stream. */
    public record Chunk(long offset, byte[] data, boolean eof) {
        public LogWindow.Range range() {
            return new LogWindow.Range(offset, data.length);
        }
    }

    /** Up to {@code limit} chunks of the stream that end after {@code position}, in offset order. */
    public List<Chunk> chunksAfter(Stream stream, long position, int limit) {
        return jdbc.sql("""
                        select start_offset, data, eof from log_chunks
                        where job_id = :j and attempt = :a and replica = :r and stream = :s
                          and start_offset + octet_length(data) > :p
                        order by start_offset limit :limit""")
                .param("j", stream.jobId()).param("a", stream.attempt()).param("r", stream.replica())
                .param("s", stream.stream()).param("p", position).param("limit", limit)
                .query((rs, n) -> new Chunk(rs.getLong(1), rs.getBytes(2), rs.getBoolean(3))).list();
    }

    /** The end of the stream, where the agent marked it (an eof chunk is stored). */
    public Optional<Long> streamEnd(Stream stream) {
        return jdbc.sql("""
                        select start_offset + octet_length(data) from log_chunks
                        where job_id = :j and attempt = :a and replica = :r and stream = :s and eof
                        order by start_offset desc limit 1""")
                .param("j", stream.jobId()).param("a", stream.attempt()).param("r", stream.replica())
                .param("s", stream.stream()).query(Long.class).optional();
    }

    /**
     * Removes expired follows, chunks of streams no one followed for {@code unfollowed}, and every chunk older than
     * {@code retention}. @return the chunks removed
     */
    public int cleanup(Duration unfollowed, Duration retention) {
        Instant now = clock.instant();
        jdbc.sql("delete from log_follows where expires_at <= :now").param("now", JobRows.ts(now)).update();
        return jdbc.sql("""
                        delete from log_chunks c where c.stored_at < :old
                           or (c.stored_at < :quiet and not exists (select 1 from log_follows f
                               where f.job_id = c.job_id and f.attempt = c.attempt and f.replica = c.replica
                                 and f.stream = c.stream))""")
                .param("old", JobRows.ts(now.minus(retention))).param("quiet", JobRows.ts(now.minus(unfollowed)))
                .update();
    }
}
