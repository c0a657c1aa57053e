package io.fleetjobs.store;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * How far each scheduler replica has written the heartbeats it heard (V23), and the time silence may be judged at:
 * the slowest live replica's watermark. A replica that wrote none for {@code liveWindow} is taken for gone and no
 * longer holds the judgement back; while none is live, the last watermark any wrote stands (nothing is judged
 * silent on the evidence of a control plane that hears nothing), and with no row at all, now.
 */
public final class HeartbeatWatermarks {
    private final JdbcClient jdbc;
    private final InstantSource clock;

    public HeartbeatWatermarks(JdbcClient jdbc, InstantSource clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /** Every heartbeat {@code replica} heard before {@code heardUntil} is written. */
    public void record(String replica, Instant heardUntil) {
        jdbc.sql("""
                        insert into heartbeat_watermarks (replica, heard_until, written_at) values (:r, :h, :now)
                        on conflict (replica) do update set heard_until = greatest(heartbeat_watermarks.heard_until,
                            excluded.heard_until), written_at = excluded.written_at""")
                .param("r", replica).param("h", JobRows.ts(heardUntil)).param("now", JobRows.ts(clock.instant()))
                .update();
    }

    /** The time machines' silence may be judged at, no later than {@code now}. */
    public Instant judgeAt(Instant now, Duration liveWindow) {
        record Mark(Instant heardUntil, Instant writtenAt) {
        }
        List<Mark> marks = jdbc.sql("select heard_until, written_at from heartbeat_watermarks")
                .query((rs, n) -> new Mark(JobRows.instant(rs, 1), JobRows.instant(rs, 2))).list();
        if (marks.isEmpty()) {
            return now;
        }
        Instant liveSince = now.minus(liveWindow);
        Optional<Instant> slowestLive = marks.stream().filter(m -> m.writtenAt().isAfter(liveSince))
                .map(Mark::heardUntil).min(Instant::compareTo);
        Instant at = slowestLive.orElseGet(() -> marks.stream().map(Mark::heardUntil).max(Instant::compareTo).orElseThrow());
        return at.isBefore(now) ? at : now;
    }

    /** Forgets replicas that wrote nothing for {@code after} (gone for good). @return how many */
    public int forget(Duration after) {
        return jdbc.sql("delete from heartbeat_watermarks where written_at < :before")
                .param("before", JobRows.ts(clock.instant().minus(after))).update();
    }
}
