package io.fleetjobs.agent.process;

import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a machine's egress rules on what the host names in them resolve to now: the scheduler's, and those of
 * {@code deny-egress}. Each {@link #refresh} resolves them again and, where the set of destinations changed (a name
 * moved to another address; the order DNS answers in does not count), applies the new rules, which replace the table
 * whole in one transaction ({@link EgressFence}). A name that no longer resolves, or rules nftables refuses, leave the
 * rules as they were, with a warning: never fewer rules than the last ones applied because DNS failed once.
 */
public final class EgressRefresh {
    private static final Logger log = LoggerFactory.getLogger(EgressRefresh.class);

    /** What a refresh did. */
    public enum Result { UNCHANGED, APPLIED, FAILED }

    private final Supplier<Egress> resolve;
    private final Function<Egress, Optional<String>> apply;
    private volatile Egress current;

    /**
     * @param applied the rules in force now
     * @param resolve resolves the destinations again (throws where a name does not resolve)
     * @param apply   applies rules; empty when they hold, else why not
     */
    public EgressRefresh(Egress applied, Supplier<Egress> resolve, Function<Egress, Optional<String>> apply) {
        this.current = applied;
        this.resolve = resolve;
        this.apply = apply;
    }

    public Egress current() {
        return current;
    }

    public Result refresh() {
        Egress fresh;
        try {
            fresh = resolve.get();
        } catch (RuntimeException e) {
            log.warn("cannot resolve the egress rules' host names again ({}): the rules stay as they were", e.toString());
            return Result.FAILED;
        }
        if (Set.copyOf(fresh.denied()).equals(Set.copyOf(current.denied()))) {
            return Result.UNCHANGED;
        }
        Optional<String> failure = apply.apply(fresh);
        if (failure.isPresent()) {
            log.warn("cannot apply the egress rules for what their host names resolve to now ({}): the rules stay as they"
                    + " were", failure.get());
            return Result.FAILED;
        }
        log.info("egress rules applied again, their host names resolving elsewhere: attempts may not connect to {}",
                fresh.denied());
        current = fresh;
        return Result.APPLIED;
    }
}
