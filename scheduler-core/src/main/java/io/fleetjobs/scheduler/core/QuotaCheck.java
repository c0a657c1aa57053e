package io.fleetjobs.scheduler.core;

import io.fleetjobs.model.UnplacedKind;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds back a job that would take its tenant over quota. Asked before any machine is looked at, so a
 * job over quota costs no search. A job that alone exceeds the quota can never run under it:
 * {@link UnplacedKind#CAN_NEVER_FIT}; one that fits the quota but not beside what the tenant already
 * holds waits: {@link UnplacedKind#OVER_QUOTA}.
 */
final class QuotaCheck {

    private QuotaCheck() {
    }

    /** Why the job is held back, or null if its tenant's quota allows it. */
    static Unplaced check(PendingJob job, TenantLedger.Account account) {
        Quota quota = account.view.quota();
        if (quota.equals(Quota.UNLIMITED)) {
            return null;
        }
        List<String> never = new ArrayList<>();
        List<String> notNow = new ArrayList<>();
        for (Dimension dimension : Dimension.values()) {
            Long limit = limit(quota, dimension);
            long request = dimension.request(job);
            if (limit == null || request == 0) {
                continue;
            }
            long held = account.held(dimension);
            if (request > limit) {
                never.add("the job needs " + dimension.amount(request)
                        + ", more than the tenant's whole quota of " + dimension.amount(limit));
            } else if (held + request > limit) {
                notNow.add(dimension.number(held) + " of " + dimension.amount(limit)
                        + " in use, the job needs " + dimension.number(request) + " more");
            }
        }
        if (!never.isEmpty()) {
            return new Unplaced(UnplacedKind.CAN_NEVER_FIT, String.join("; ", never), null);
        }
        if (!notNow.isEmpty()) {
            return new Unplaced(UnplacedKind.OVER_QUOTA,
                    "held back by the tenant's quota: " + String.join("; ", notNow), null);
        }
        return null;
    }

    private static Long limit(Quota quota, Dimension dimension) {
        return switch (dimension) {
            case GPU -> quota.gpuCount() == null ? null : quota.gpuCount().longValue();
            case CPU -> quota.cpuMillis();
            case MEMORY -> quota.memoryMb();
        };
    }
}
