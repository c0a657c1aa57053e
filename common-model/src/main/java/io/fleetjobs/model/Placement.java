package io.fleetjobs.model;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.Map;

/**
 * Where an attempt may run.
 *
 * @param region the machine's region, null for any
 * @param labels pairs that the machine must carry, every one
 * @param strategy how to choose among the machines that fit; {@link PlacementStrategy#BINPACK} by default
 * @param requireIsolation only machines that sandbox their jobs (own uid, namespaces, cgroup); false by default
 * @param gangScope where a gang's replicas must be together: null for anywhere, {@value #SAME_REGION} (one region),
 *                  or {@code label:KEY} (machines that share one value of label KEY); ignored for a job of one replica
 */
public record Placement(
        @Pattern(regexp = "[A-Za-z0-9._-]{1,64}", message = "must be 1-64 of [A-Za-z0-9._-]") String region,
        @Size(max = 32) Map<@NotNull @Size(min = 1, max = 128) String, @NotNull @Size(max = 256) String> labels,
        PlacementStrategy strategy,
        Boolean requireIsolation,
        @Pattern(regexp = "region|label:[A-Za-z0-9._/-]{1,128}", message = "must be 'region' or 'label:KEY'")
        String gangScope) {

    public static final Placement ANYWHERE = new Placement(null, Map.of(), null);
    /** A gang's replicas in one region. */
    public static final String SAME_REGION = "region";
    /** The prefix of a gang scope naming the label whose value the replicas' machines share. */
    public static final String SAME_LABEL = "label:";

    public Placement(String region, Map<String, String> labels, PlacementStrategy strategy, Boolean requireIsolation) {
        this(region, labels, strategy, requireIsolation, null);
    }

    public Placement(String region, Map<String, String> labels, PlacementStrategy strategy) {
        this(region, labels, strategy, false);
    }

    public Placement {
        labels = Copies.map(labels);
        strategy = strategy == null ? PlacementStrategy.BINPACK : strategy;
        requireIsolation = requireIsolation != null && requireIsolation;
    }
}
