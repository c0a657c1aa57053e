package io.fleetjobs.store;

import io.fleetjobs.model.JobState;

/**
 * Which of a tenant's jobs a list shows: each part given must match, the rest match anything.
 *
 * @param queue     the job's queue, exactly
 * @param name      a part of the job's name, in any case
 * @param labelKey  the job has a label of this key
 * @param labelValue when given, that label has this value
 */
public record JobFilter(JobState state, String queue, String name, String labelKey, String labelValue) {
    public JobFilter {
        if (labelKey == null && labelValue != null) {
            throw new IllegalArgumentException("a label's value without its key");
        }
    }
}
