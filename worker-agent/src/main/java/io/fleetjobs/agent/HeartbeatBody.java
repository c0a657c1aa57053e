package io.fleetjobs.agent;

import io.fleetjobs.model.agent.AttemptReport;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What one heartbeat carries, within what the agent API takes (1 MiB by default: the scheduler answers 413 to more
 * and hears nothing of the machine). A job chooses what its tails hold, and JSON writes a control character as a
 * six-byte escape: four attempts that each ended with 64 KiB of them on stdout and stderr made every heartbeat of
 * their machine 3 MiB, and the machine was declared lost with every attempt on it. So each final report's tails
 * keep their last {@link #TAIL_JSON_BYTES} as JSON writes them, and a heartbeat carries final reports up to
 * {@link #FINALS_JSON_BYTES} together (at least one); the rest go in the heartbeats that follow, each sent at once
 * after the one whose reports were acknowledged. Pure.
 */
final class HeartbeatBody {
    /** The most one tail takes in a heartbeat, as JSON writes it: what the scheduler keeps of a tail (64 KiB). */
    static final long TAIL_JSON_BYTES = 64 * 1024;
    /** The most the final reports of one heartbeat take together, leaving room for the running ones. */
    static final long FINALS_JSON_BYTES = 512 * 1024;
    /** What a report takes besides its tails, at most (ids, state, times). */
    static final long REPORT_JSON_BYTES = 512;

    private HeartbeatBody() {
    }

    /** The report with each tail cut to its last {@link #TAIL_JSON_BYTES} as JSON writes them. */
    static AttemptReport fitted(AttemptReport r) {
        String stdout = lastJsonBytes(r.stdoutTail(), TAIL_JSON_BYTES);
        String stderr = lastJsonBytes(r.stderrTail(), TAIL_JSON_BYTES);
        if (stdout == r.stdoutTail() && stderr == r.stderrTail()) {
            return r;
        }
        return new AttemptReport(r.jobId(), r.attempt(), r.epoch(), r.machineId(), r.state(), r.exitCode(),
                r.failureReason(), r.startedAt(), r.finishedAt(), stdout, stderr);
    }

    /** The final reports the next heartbeat carries: in order, up to {@link #FINALS_JSON_BYTES}, at least one. */
    static List<AttemptReport> finalsToSend(Collection<AttemptReport> finals) {
        List<AttemptReport> sent = new ArrayList<>();
        long bytes = 0;
        for (AttemptReport r : finals) {
            long size = REPORT_JSON_BYTES + jsonBytes(r.stdoutTail()) + jsonBytes(r.stderrTail());
            if (!sent.isEmpty() && bytes + size > FINALS_JSON_BYTES) {
                break;
            }
            sent.add(r);
            bytes += size;
        }
        return sent;
    }

    /** What JSON takes for the text inside its quotes, at most (an escape for control characters, quotes and slashes). */
    static long jsonBytes(String text) {
        if (text == null) {
            return 0;
        }
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            bytes += jsonBytes(text.charAt(i));
        }
        return bytes;
    }

    private static int jsonBytes(char c) {
        if (c < 0x20) {
            return c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f' ? 2 : 6;
        }
        if (c == '"' || c == '\\' || c == '/') {
            return 2;
        }
        if (c < 0x80) {
            return 1;
        }
        return Character.isSurrogate(c) ? 6 : 3; // a surrogate: half a pair's 4 bytes, or an escape of one alone
    }

    /** The longest end of the text that JSON writes in at most {@code max} bytes (never half a surrogate pair). */
    static String lastJsonBytes(String text, long max) {
        if (text == null || text.length() <= max / 6) {
            return text;
        }
        long bytes = 0;
        int from = text.length();
        while (from > 0) {
            int size = jsonBytes(text.charAt(from - 1));
            if (bytes + size > max) {
                break;
            }
            bytes += size;
            from--;
        }
        if (from > 0 && from < text.length() && Character.isLowSurrogate(text.charAt(from))) {
            from++;
        }
        return from == 0 ? text : text.substring(from);
    }
}
