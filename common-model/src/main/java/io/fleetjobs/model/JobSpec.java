package io.fleetjobs.model;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.Map;

/**
 * What a user asks for. Absent optional parts take their defaults here, so that a stored spec is
 * always complete and two bodies that mean the same thing are the same spec (idempotency compares
 * specs, not bytes). {@code preemptible} (default true): whether a job of a strictly higher priority that fits
 * nowhere may end this one's attempt to make room (it is then retried on the platform's budget). {@code replicas}
 * (default 1, at most {@value #MAX_REPLICAS}): more than one makes the job a gang, its replicas placed all or none
 * (on distinct machines, together where {@code placement.gangScope} says), started together, ended together.
 */
public record JobSpec(
        @NotNull @Pattern(regexp = Names.NAME, message = "must be 1-128 of [A-Za-z0-9._-]") String name,
        @Pattern(regexp = Names.NAME, message = "must be 1-128 of [A-Za-z0-9._-]") String queue,
        @Min(0) @Max(1000) Integer priority,
        @NotNull @Valid Resources resources,
        @Valid Placement placement,
        @NotNull @Valid Execution execution,
        @Valid RetryPolicy retry,
        @Size(max = 64) Map<@NotNull @Size(min = 1, max = 128) String, @NotNull @Size(max = 1024) String> labels,
        Boolean preemptible,
        @Min(1) @Max(MAX_REPLICAS) Integer replicas) {

    /** The most replicas a gang may have. */
    public static final int MAX_REPLICAS = 64;

    public static final String DEFAULT_QUEUE = "default";
    public static final int DEFAULT_PRIORITY = 500;

    /** A job that may be preempted (the default). */
    public JobSpec(String name, String queue, Integer priority, Resources resources, Placement placement,
            Execution execution, RetryPolicy retry, Map<String, String> labels) {
        this(name, queue, priority, resources, placement, execution, retry, labels, null);
    }

    /** A job of one replica. */
    public JobSpec(String name, String queue, Integer priority, Resources resources, Placement placement,
            Execution execution, RetryPolicy retry, Map<String, String> labels, Boolean preemptible) {
        this(name, queue, priority, resources, placement, execution, retry, labels, preemptible, null);
    }

    public JobSpec {
        preemptible = preemptible == null ? Boolean.TRUE : preemptible;
        replicas = replicas == null ? 1 : replicas;
        queue = queue == null ? DEFAULT_QUEUE : queue;
        priority = priority == null ? DEFAULT_PRIORITY : priority;
        placement = placement == null ? Placement.ANYWHERE : placement;
        retry = retry == null ? RetryPolicy.DEFAULT : retry;
        labels = Copies.map(labels);
    }

    /**
     * Whether only a machine that sandboxes its jobs may run it: asked for ({@code placement.requireIsolation}), or
     * implied by a network of its own ({@code execution.network} {@value Execution#NO_NETWORK}), which only the
     * sandbox makes. The claim's query reads the same from the stored spec ({@code QueuedJobs}).
     */
    public boolean requiresSandbox() {
        return placement.requireIsolation() || execution.ownNetwork();
    }

    /** The patterns that names in the spec follow. */
    public static final class Names {
        public static final String NAME = "[A-Za-z0-9._-]{1,128}";

        private Names() {
        }
    }
}
