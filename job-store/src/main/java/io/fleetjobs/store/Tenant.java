package io.fleetjobs.store;

import java.util.UUID;

/**
 * A tenant; quota fields are null where unlimited. {@code maxLiveJobs}: how many of its jobs may be live (not
 * SUCCEEDED, FAILED or CANCELED) at once; a submit past it is refused. {@code maxPriority}: the highest priority its
 * jobs may ask for; a submit over it is refused. {@code allowPrivateWebhooks}: an admin let
 * its webhooks reach loopback, private and link-local addresses.
 */
public record Tenant(UUID id, String name, int weight, Long quotaCpuMillis, Long quotaMemoryMb, Integer quotaGpuCount,
        Integer maxLiveJobs, Integer maxPriority, boolean allowPrivateWebhooks) {
}
