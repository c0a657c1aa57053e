package io.fleetjobs.store;

import io.fleetjobs.model.FailureReason;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Collection;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;

/** How a job row and the store's column types map to Java: the one place that knows the columns. */
final class JobRows {
    /** A job's columns but its spec (what {@link #job} reads besides it). */
    static final String COLUMNS_BUT_SPEC = """
            id, tenant_id, state, state_reason, version, attempt, user_failures, infra_failures,
            machine_id, exit_code, failure_reason, cancel_requested, not_before, created_at, updated_at, finished_at""";
    static final String COLUMNS = "spec, " + COLUMNS_BUT_SPEC;

    static final RowMapper<JobRecord> JOB = (rs, n) -> job(rs, Json.read(rs.getString("spec"), JobSpec.class));

    private JobRows() {
    }

    /** The job on the current row of {@code rs}, with the spec given (null where the spec was not read). */
    static JobRecord job(ResultSet rs, JobSpec spec) throws SQLException {
        return new JobRecord(
                rs.getObject("id", UUID.class),
                rs.getObject("tenant_id", UUID.class),
                spec,
                JobState.valueOf(rs.getString("state")),
                rs.getString("state_reason"),
                rs.getLong("version"),
                rs.getInt("attempt"),
                rs.getInt("user_failures"),
                rs.getInt("infra_failures"),
                rs.getString("machine_id"),
                (Integer) rs.getObject("exit_code"),
                failure(rs.getString("failure_reason")),
                rs.getBoolean("cancel_requested"),
                instant(rs, "not_before"),
                instant(rs, "created_at"),
                instant(rs, "updated_at"),
                instant(rs, "finished_at"));
    }

    /** {@code columns} (a comma-separated list) with each qualified by {@code alias}. */
    static String prefixed(String alias, String columns) {
        return String.join(", ", Arrays.stream(columns.split(",")).map(c -> alias + "." + c.strip()).toList());
    }

    static OffsetDateTime ts(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    static Instant instant(ResultSet rs, int column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    static JobState state(String s) {
        return s == null ? null : JobState.valueOf(s);
    }

    static FailureReason failure(String s) {
        return s == null ? null : FailureReason.valueOf(s);
    }

    /** The ids as the text array that {@code cast(:ids as uuid[])} takes. */
    static String[] ids(Collection<UUID> ids) {
        return ids.stream().map(UUID::toString).toArray(String[]::new);
    }
}
