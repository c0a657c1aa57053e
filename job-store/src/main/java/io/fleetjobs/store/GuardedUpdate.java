package io.fleetjobs.store;

import java.time.Instant;
import java.util.List;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The statement behind {@link JobWrites}: every change of a batch as one row of an {@code unnest}, so
 * that a thousand changes cost one round trip. A row moves only where its state and version are still
 * the ones its writer read. Every change writes a new reason, so the unplaced kind of the old one goes. A change
 * written with the move before it ({@link Transition#after}) moves the version by two.
 */
final class GuardedUpdate {
    private static final String SQL = """
            update jobs j set
                state = d.to_state, state_reason = d.reason, version = j.version + d.moves, updated_at = :now,
                finished_at = case when d.terminal then :now else j.finished_at end,
                attempt = case when d.next_attempt then j.attempt + 1 else coalesce(d.attempt, j.attempt) end,
                machine_id = case when d.set_machine then d.machine else j.machine_id end,
                exit_code = case when d.set_outcome then d.exit_code else j.exit_code end,
                failure_reason = case when d.set_outcome then d.failure else j.failure_reason end,
                not_before = coalesce(d.not_before, j.not_before),
                user_failures = j.user_failures + d.user_failures,
                infra_failures = j.infra_failures + d.infra_failures,
                cancel_requested = j.cancel_requested or d.cancel,
                requeued_ahead = coalesce(d.ahead, j.requeued_ahead),
                unplaced_kind = null
            from unnest(cast(:ids as uuid[]), cast(:froms as text[]), cast(:versions as bigint[]),
                        cast(:tos as text[]), cast(:reasons as text[]), cast(:terminal as boolean[]),
                        cast(:attempts as int[]), cast(:next as boolean[]), cast(:setMachine as boolean[]),
                        cast(:machines as text[]), cast(:setOutcome as boolean[]), cast(:exitCodes as int[]),
                        cast(:failures as text[]), cast(cast(:notBefore as text[]) as timestamptz[]),
                        cast(:userFailures as int[]), cast(:infraFailures as int[]), cast(:cancel as boolean[]),
                        cast(:moves as int[]), cast(:ahead as boolean[]))
                 as d(id, from_state, version, to_state, reason, terminal, attempt, next_attempt, set_machine, machine,
                      set_outcome, exit_code, failure, not_before, user_failures, infra_failures, cancel, moves, ahead)
            where j.id = d.id and j.state = d.from_state and j.version = d.version
            returning\s""" + JobRows.prefixed("j", JobRows.COLUMNS_BUT_SPEC);

    private final String[] ids;
    private final String[] froms;
    private final Long[] versions;
    private final String[] tos;
    private final String[] reasons;
    private final Boolean[] terminal;
    private final Integer[] attempts;
    private final Boolean[] next;
    private final Boolean[] setMachine;
    private final String[] machines;
    private final Boolean[] setOutcome;
    private final Integer[] exitCodes;
    private final String[] failures;
    private final String[] notBefore;
    private final Integer[] userFailures;
    private final Integer[] infraFailures;
    private final Boolean[] cancel;
    private final Integer[] moves;
    private final Boolean[] ahead;
    private int size;

    GuardedUpdate(int n) {
        ids = new String[n];
        froms = new String[n];
        versions = new Long[n];
        tos = new String[n];
        reasons = new String[n];
        terminal = new Boolean[n];
        attempts = new Integer[n];
        next = new Boolean[n];
        setMachine = new Boolean[n];
        machines = new String[n];
        setOutcome = new Boolean[n];
        exitCodes = new Integer[n];
        failures = new String[n];
        notBefore = new String[n];
        userFailures = new Integer[n];
        infraFailures = new Integer[n];
        cancel = new Boolean[n];
        moves = new Integer[n];
        ahead = new Boolean[n];
    }

    void add(JobWrites.Change c) {
        Transition t = c.transition();
        int i = size++;
        ids[i] = c.jobId().toString();
        froms[i] = c.from().name();
        versions[i] = c.version();
        tos[i] = t.to.name();
        reasons[i] = t.reason;
        terminal[i] = t.to.isTerminal();
        attempts[i] = t.attempt;
        next[i] = t.nextAttempt;
        setMachine[i] = t.setMachine;
        machines[i] = t.machineId;
        setOutcome[i] = t.setOutcome;
        exitCodes[i] = t.exitCode;
        failures[i] = t.failureReason == null ? null : t.failureReason.name();
        notBefore[i] = t.notBefore == null ? null : t.notBefore.toString();
        userFailures[i] = t.userFailures;
        infraFailures[i] = t.infraFailures;
        cancel[i] = t.cancelRequest;
        moves[i] = t.before == null ? 1 : 2;
        ahead[i] = t.ahead;
    }

    /** The rows that moved, as {@code rows} maps them. */
    List<JobRecord> run(JdbcClient jdbc, Instant now, RowMapper<JobRecord> rows) {
        return jdbc.sql(SQL)
                .param("ids", ids).param("froms", froms).param("versions", versions).param("tos", tos)
                .param("reasons", reasons).param("terminal", terminal).param("attempts", attempts).param("next", next)
                .param("setMachine", setMachine).param("machines", machines).param("setOutcome", setOutcome)
                .param("exitCodes", exitCodes).param("failures", failures).param("notBefore", notBefore)
                .param("userFailures", userFailures).param("infraFailures", infraFailures).param("cancel", cancel)
                .param("moves", moves).param("ahead", ahead).param("now", JobRows.ts(now))
                .query(rows).list();
    }
}
