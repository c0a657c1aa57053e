package io.fleetjobs.jobservice.api;

import io.fleetjobs.jobservice.JobCancellation;
import io.fleetjobs.model.Execution;
import io.fleetjobs.model.JobSpec;
import io.fleetjobs.model.JobState;
import io.fleetjobs.store.JobFilter;
import io.fleetjobs.store.JobLogContext;
import io.fleetjobs.store.JobRecord;
import io.fleetjobs.store.JobStore;
import io.fleetjobs.store.Submission;
import io.fleetjobs.support.CallerIdentity;
import io.fleetjobs.support.PlacesPerKey;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.validation.Validator;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The jobs half of API.md, scoped to the caller's tenant: another tenant's job does not exist. The
 * caller is the identity the gateway signed ({@link io.fleetjobs.support.IdentityFilter}).
 */
@RestController
@RequestMapping("/api/v1/jobs")
@Tag(name = "jobs", description = "Jobs of the caller's tenant.")
class JobsController {
    static final int MAX_PAGE = 500;
    private static final Logger log = LoggerFactory.getLogger(JobsController.class);

    private final JobStore store;
    private final JobCancellation cancellation;
    private final Validator validator;
    /** Admit a valid job in its submit's transaction (QUEUED at once) rather than through the outbox and admission. */
    private final boolean admitOnSubmit;
    /** What a submit refused for the tenant's quota of live jobs tells the caller to wait. */
    private final long quotaRetryAfterSeconds;
    /**
     * Listings by queue, name or label in progress, by tenant: no such filter has an index, so such a listing reads the
     * tenant's jobs newest first until it has its page (half a second of PostgreSQL at 200,000 jobs for a name), and a
     * tenant may call 200 times a second.
     */
    private final PlacesPerKey<UUID> scans;

    JobsController(JobStore store, JobCancellation cancellation, Validator validator,
            @Value("${jobs.admission.on-submit:true}") boolean admitOnSubmit,
            @Value("${jobs.quota.retry-after-seconds:10}") long quotaRetryAfterSeconds,
            @Value("${jobs.api.filtered-listings-per-tenant:2}") int filteredListingsPerTenant) {
        this.store = store;
        this.cancellation = cancellation;
        this.validator = validator;
        this.admitOnSubmit = admitOnSubmit;
        this.quotaRetryAfterSeconds = quotaRetryAfterSeconds;
        this.scans = new PlacesPerKey<>(filteredListingsPerTenant);
    }

    @Operation(operationId = "submitJob", summary = "Submit a job")
    @PostMapping
    ResponseEntity<JobView> submit(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller,
            @RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey,
            @RequestBody(required = false) JobSpec spec) {
        if (idempotencyKey != null && (idempotencyKey.isEmpty() || idempotencyKey.length() > 128)) {
            throw ApiException.badRequest("Idempotency-Key", "must be 1-128 characters");
        }
        if (spec == null) {
            throw ApiException.badRequest("body", "a job spec is required");
        }
        var violations = validator.validate(spec);
        if (!violations.isEmpty()) {
            throw ApiException.invalid(violations.stream()
                    .map(v -> new ApiException.FieldError(FieldPaths.of(v), v.getMessage()))
                    .sorted(Comparator.comparing(ApiException.FieldError::field))
                    .toList());
        }
        if (spec.replicas() > 1 && spec.execution().ownNetwork()) {
            throw ApiException.badRequest("execution.network", "must be " + Execution.HOST_NETWORK
                    + " for a gang (replicas above 1): its replicas reach each other over the network");
        }
        return switch (store.submit(caller.tenantId(), spec, idempotencyKey, admitOnSubmit)) {
            case Submission.Accepted(JobRecord job, boolean created) -> logged(job, created, caller)
                    .location(URI.create("/api/v1/jobs/" + job.id()))
                    .body(JobView.of(job, caller.tenantName()));
            case Submission.KeyConflict conflict -> throw ApiException.conflict(
                    "Idempotency-Key was used for job " + conflict.existing().id() + " with another spec");
            case Submission.OverQuota(long live, int max) -> throw ApiException.tooManyRequests("tenant "
                    + caller.tenantName() + " has " + live + " live jobs, its quota maxLiveJobs is " + max, quotaRetryAfterSeconds);
            case Submission.PriorityOverQuota(int max) -> throw ApiException.badRequest("priority", "must be at most "
                    + max + ", the quota maxPriority of tenant " + caller.tenantName());
        };
    }

    /** One line per accepted submission, carrying the job's id in the logging context; the answer's status. */
    private static ResponseEntity.BodyBuilder logged(JobRecord job, boolean created, CallerIdentity caller) {
        try (var ignored = JobLogContext.of(job.id())) {
            log.info("job {} {} by tenant {}", job.id(), created ? "submitted" : "submitted again (same key)",
                    caller.tenantName());
        }
        return ResponseEntity.status(created ? HttpStatus.CREATED : HttpStatus.OK);
    }

    @Operation(operationId = "getJob", summary = "Get a job")
    @GetMapping("/{id}")
    JobView get(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String id) {
        return JobView.of(find(caller, id), caller.tenantName());
    }

    @Operation(operationId = "listJobs", summary = "List jobs")
    @GetMapping
    JobView.Page list(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller,
            @RequestParam(required = false) String state,
            @RequestParam(required = false) Integer limit,
            @RequestParam(required = false) String pageToken,
            @RequestParam(required = false) String queue,
            @RequestParam(required = false) String name,
            @RequestParam(required = false) String label) {
        JobState wanted = null;
        if (state != null) {
            try {
                wanted = JobState.valueOf(state);
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("state", "must be one of " + List.of(JobState.values()));
            }
        }
        int size = limit == null ? 50 : limit;
        if (size < 1 || size > MAX_PAGE) {
            throw ApiException.badRequest("limit", "must be between 1 and " + MAX_PAGE);
        }
        UUID after = pageToken == null ? null : decodeToken(pageToken);
        noNul("queue", queue);
        noNul("name", name);
        noNul("label", label);
        String labelKey = null;
        String labelValue = null;
        if (label != null) {
            int eq = label.indexOf('=');
            if (eq == 0 || label.isBlank()) {
                throw ApiException.badRequest("label", "must be key or key=value");
            }
            labelKey = eq < 0 ? label : label.substring(0, eq);
            labelValue = eq < 0 ? null : label.substring(eq + 1);
        }
        JobFilter filter = new JobFilter(wanted, blankToNull(queue), blankToNull(name), labelKey, labelValue);
        boolean scan = filter.queue() != null || filter.name() != null || filter.labelKey() != null;
        if (scan && !scans.tryTake(caller.tenantId())) {
            throw ApiException.tooManyRequests("tenant " + caller.tenantName() + " has " + scans.perKey()
                    + " listings filtered by queue, name or label in progress here; each reads the tenant's jobs until"
                    + " it has its page", 1);
        }
        JobStore.Page rows;
        try {
            rows = store.list(caller.tenantId(), filter, after, size);
        } finally {
            if (scan) {
                scans.giveBack(caller.tenantId());
            }
        }
        List<JobRecord> page = rows.jobs();
        String next = rows.more() ? encodeToken(page.getLast().id()) : null;
        return new JobView.Page(page.stream().map(j -> JobView.of(j, caller.tenantName())).toList(), next);
    }

    /** A filter compared with stored text, which never holds NUL ({@link NoNulStrings}): refused, not looked for. */
    private static void noNul(String parameter, String value) {
        if (NoNulStrings.hasNul(value)) {
            throw ApiException.badRequest(parameter, NoNulStrings.MESSAGE);
        }
    }

    @Operation(operationId = "cancelJob", summary = "Cancel a job")
    @PostMapping("/{id}/cancel")
    ResponseEntity<JobView> cancel(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String id) {
        return switch (cancellation.cancel(find(caller, id))) {
            case JobCancellation.Result.Accepted(JobRecord job) ->
                    ResponseEntity.accepted().body(JobView.of(job, caller.tenantName()));
            case JobCancellation.Result.Refused refused -> throw ApiException.conflict(refused.reason());
        };
    }

    @Operation(operationId = "listAttempts", summary = "A job's attempts")
    @GetMapping("/{id}/attempts")
    JobView.Items<JobView.AttemptView> attempts(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller,
            @PathVariable String id) {
        return new JobView.Items<>(store.attempts(find(caller, id).id()).stream().map(JobView.AttemptView::of).toList());
    }

    /** The last 64 KiB of each of stdout and stderr of an attempt, as its agent last reported them. */
    @Operation(operationId = "getAttemptLogs", summary = "An attempt's output")
    @GetMapping("/{id}/attempts/{attempt}/logs")
    JobStore.Logs logs(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller, @PathVariable String id,
            @PathVariable int attempt, @RequestParam(defaultValue = "0") int replica,
            @io.swagger.v3.oas.annotations.Parameter(hidden = true) @RequestParam(required = false) String follow) {
        requireFollowNotAsked(follow);
        requireAttempt(attempt);
        requireReplica(replica);
        return store.logs(find(caller, id).id(), attempt, replica)
                .orElseThrow(() -> ApiException.notFound(attemptName(attempt, replica) + " of job " + id));
    }

    /** Attempts are numbered from 1 (the Job's {@code attempt} is 0 only before the first). */
    static void requireAttempt(int attempt) {
        if (attempt < 1) {
            throw ApiException.badRequest("attempt", "must be 1 or more (attempts are numbered from 1)");
        }
    }

    /** A gang's replica is 0 or more; a job of one replica has replica 0 only. */
    static void requireReplica(int replica) {
        if (replica < 0) {
            throw ApiException.badRequest("replica", "must be 0 or more (a gang's replicas are 0 to worldSize - 1)");
        }
    }

    /** "attempt 2", or "replica 3 of attempt 2" for a gang's other replicas. */
    static String attemptName(int attempt, int replica) {
        return (replica == 0 ? "" : "replica " + replica + " of ") + "attempt " + attempt;
    }

    @Operation(operationId = "listEvents", summary = "A job's state changes")
    @GetMapping("/{id}/events")
    JobView.Items<JobView.EventView> events(@RequestAttribute(CallerIdentity.ATTRIBUTE) CallerIdentity caller,
            @PathVariable String id,
            @io.swagger.v3.oas.annotations.Parameter(hidden = true) @RequestParam(required = false) String follow) {
        requireFollowNotAsked(follow);
        return new JobView.Items<>(store.history(find(caller, id).id()).stream().map(JobView.EventView::of).toList());
    }

    /**
     * {@code follow=true} is mapped to the streaming handlers; any other value but {@code false} came to these and was
     * ignored, so that {@code follow=1} or {@code follow=TRUE} answered once as if following had been asked for and was
     * over.
     */
    private static void requireFollowNotAsked(String follow) {
        if (follow != null && !follow.equals("false")) {
            throw ApiException.badRequest("follow", "must be true or false");
        }
    }

    private JobRecord find(CallerIdentity caller, String id) {
        UUID jobId;
        try {
            jobId = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound("job " + id);
        }
        return store.find(caller.tenantId(), jobId).orElseThrow(() -> ApiException.notFound("job " + id));
    }

    private static String encodeToken(UUID id) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(id.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static UUID decodeToken(String token) {
        try {
            return UUID.fromString(new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("pageToken", "is not a token this API issued");
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
