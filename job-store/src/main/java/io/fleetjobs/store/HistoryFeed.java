package io.fleetjobs.store;

import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * job_history read by position (V24), for live event streams: all jobs after a position (one query per poll for
 * every open stream), and one job's or one tenant's between two positions (a stream catching up after a resume).
 */
public class HistoryFeed {
    private static final String SELECT = """
            select h.position, h.job_id, j.tenant_id, h.version, h.at, h.from_state, h.to_state, h.reason
            from job_history h join jobs j on j.id = h.job_id
            """;
    private static final RowMapper<FeedEvent> EVENT = (rs, n) -> new FeedEvent(rs.getLong(1), rs.getObject(2, UUID.class),
            rs.getObject(3, UUID.class), rs.getLong(4), JobRows.instant(rs, 5), JobRows.state(rs.getString(6)),
            JobRows.state(rs.getString(7)), rs.getString(8));

    private final JdbcClient jdbc;

    public HistoryFeed(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Changes of every job with a position above {@code after}, in position order, at most {@code limit}. */
    public List<FeedEvent> after(long after, int limit) {
        return jdbc.sql(SELECT + "where h.position > :after order by h.position limit :limit")
                .param("after", after).param("limit", limit).query(EVENT).list();
    }

    /**
     * The positions above {@code after}, in order, at most {@code limit}: what a feed that nobody watches needs to
     * move its watermark, read from the position index without the rows or their jobs.
     */
    public List<Long> positionsAfter(long after, int limit) {
        return jdbc.sql("select position from job_history where position > :after order by position limit :limit")
                .param("after", after).param("limit", limit).query(Long.class).list();
    }

    /** A tenant's changes in positions ({@code after}, {@code upTo}], in position order, at most {@code limit}. */
    public List<FeedEvent> ofTenant(UUID tenantId, long after, long upTo, int limit) {
        return jdbc.sql(SELECT + """
                        where h.position > :after and h.position <= :upTo and j.tenant_id = :t
                        order by h.position limit :limit""")
                .param("after", after).param("upTo", upTo).param("t", tenantId).param("limit", limit).query(EVENT).list();
    }

    /** One job's changes in positions ({@code after}, {@code upTo}], in position order, at most {@code limit}. */
    public List<FeedEvent> ofJob(UUID jobId, long after, long upTo, int limit) {
        return jdbc.sql(SELECT + """
                        where h.job_id = :id and h.position > :after and h.position <= :upTo
                        order by h.position limit :limit""")
                .param("id", jobId).param("after", after).param("upTo", upTo).param("limit", limit).query(EVENT).list();
    }

    /**
     * The lowest position still kept (retention deletes the history of old jobs), or {@code 1} when there is none;
     * a cursor below it may have missed changes that are gone.
     */
    public long oldestKept() {
        return jdbc.sql("select coalesce(min(position), 1) from job_history").query(Long.class).single();
    }

    /** The highest position written and visible, or {@code 0}: where a stream that wants only new changes starts. */
    public long newest() {
        return jdbc.sql("select coalesce(max(position), 0) from job_history").query(Long.class).single();
    }
}
