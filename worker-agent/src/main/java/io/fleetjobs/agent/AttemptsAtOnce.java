package io.fleetjobs.agent;

/**
 * How many attempts this agent runs at once, told to the scheduler at its join, which places no more on the machine
 * however little each asks for. What an operator set ({@code jobs.worker.max-live-attempts}), else what half the agent's
 * heap holds at {@link #HEAP_BYTES_PER_ATTEMPT} an attempt; never more than the sandbox has uids (one an attempt).
 * Pure.
 */
final class AttemptsAtOnce {
    /**
     * The most one attempt costs the agent's heap: two output tails of 64 KiB, two read buffers of 16 KiB, its
     * threads' stacks and its bookkeeping.
     */
    static final long HEAP_BYTES_PER_ATTEMPT = 256 * 1024;

    private AttemptsAtOnce() {
    }

    /**
     * @param configured  what the operator set; null: none
     * @param maxHeap     the agent's heap limit, in bytes
     * @param sandboxUids the uids the sandbox gives attempts; null where attempts are not sandboxed
     */
    static int of(Integer configured, long maxHeap, Integer sandboxUids) {
        long limit = configured != null ? configured : maxHeap / 2 / HEAP_BYTES_PER_ATTEMPT;
        if (sandboxUids != null) {
            limit = Math.min(limit, sandboxUids);
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, limit));
    }
}
