package io.fleetjobs.store;

import io.fleetjobs.model.Ids;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Webhooks and the deliveries waiting for them. A delivery is claimed by moving its next try past a lease (so a
 * dispatcher that dies mid-send leaves it to be sent again: at least once), sent outside any transaction, then
 * deleted when answered or given up; the webhook's row keeps what a person reads of its health.
 */
public final class WebhookStore {
    /** A tenant's webhook, without its secret unless the reader is the one who signs. */
    public record Webhook(UUID id, UUID tenantId, String url, String events, String secret, Instant createdAt,
            Integer lastStatus, String lastError, Instant lastAttemptAt, Instant lastDeliveredAt, long givenUp,
            long pending) {
    }

    /** A delivery claimed for sending: the try it is (1 for the first). */
    public record Delivery(UUID webhookId, UUID eventId, String payload, int tryNumber, String url, String secret,
            boolean privateAllowed) {
    }

    /** One delivery to queue: which webhook, which event, what to send. */
    public record NewDelivery(UUID webhookId, UUID eventId, String payload) {
    }

    private static final String BASE_COLUMNS = """
            w.id, w.tenant_id, w.url, w.events, w.secret, w.created_at, w.last_status, w.last_error, w.last_attempt_at,
            w.last_delivered_at, w.given_up""";
    private static final String COLUMNS = BASE_COLUMNS
            + ", (select count(*) from webhook_deliveries d where d.webhook_id = w.id) as pending";
    private static final RowMapper<Webhook> WEBHOOK = (rs, n) -> new Webhook(rs.getObject("id", UUID.class),
            rs.getObject("tenant_id", UUID.class), rs.getString("url"), rs.getString("events"), rs.getString("secret"),
            JobRows.instant(rs, "created_at"), (Integer) rs.getObject("last_status"), rs.getString("last_error"),
            JobRows.instant(rs, "last_attempt_at"), JobRows.instant(rs, "last_delivered_at"), rs.getLong("given_up"),
            rs.getLong("pending"));

    private final JdbcClient jdbc;
    private final TransactionTemplate transactions;
    private final InstantSource clock;

    public WebhookStore(JdbcClient jdbc, PlatformTransactionManager transactions, InstantSource clock) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactions);
        this.clock = clock;
    }

    /** Registers a webhook, unless the tenant has {@code most} already: then empty. */
    public Optional<Webhook> create(UUID tenantId, String url, String events, String secret, int most) {
        return transactions.execute(tx -> createLocked(tenantId, url, events, secret, most));
    }

    private Optional<Webhook> createLocked(UUID tenantId, String url, String events, String secret, int most) {
        UUID id = Ids.newId(clock);
        // the tenant's row locked: two racing registrations cannot both pass the count
        jdbc.sql("select id from tenants where id = :t for update").param("t", tenantId).query(UUID.class).optional();
        long held = jdbc.sql("select count(*) from webhooks where tenant_id = :t").param("t", tenantId)
                .query(Long.class).single();
        if (held >= most) {
            return Optional.empty();
        }
        jdbc.sql("""
                        insert into webhooks (id, tenant_id, url, events, secret, created_at)
                        values (:id, :t, :url, :events, :secret, :now)""")
                .param("id", id).param("t", tenantId).param("url", url).param("events", events).param("secret", secret)
                .param("now", JobRows.ts(clock.instant())).update();
        return byId(tenantId, id);
    }

    public Optional<Webhook> byId(UUID tenantId, UUID id) {
        return jdbc.sql("select " + COLUMNS + " from webhooks w where w.id = :id and w.tenant_id = :t")
                .param("id", id).param("t", tenantId).query(WEBHOOK).optional();
    }

    /** A tenant's webhooks, oldest first. */
    public List<Webhook> list(UUID tenantId) {
        return jdbc.sql("select " + COLUMNS + " from webhooks w where w.tenant_id = :t order by w.created_at, w.id")
                .param("t", tenantId).query(WEBHOOK).list();
    }

    /** Removes a webhook and what waits for it. @return whether it was there */
    public boolean delete(UUID tenantId, UUID id) {
        return jdbc.sql("delete from webhooks where id = :id and tenant_id = :t").param("id", id).param("t", tenantId)
                .update() == 1;
    }

    /** Whether an admin allowed the tenant's webhooks to reach internal addresses. */
    public boolean privateAllowed(UUID tenantId) {
        return jdbc.sql("select allow_private_webhooks from tenants where id = :t").param("t", tenantId)
                .query(Boolean.class).optional().orElse(false);
    }

    /** Queues deliveries, once each: a redelivered event finds its rows there already. */
    public int enqueue(List<NewDelivery> deliveries) {
        if (deliveries.isEmpty()) {
            return 0;
        }
        return jdbc.sql("""
                        insert into webhook_deliveries (webhook_id, event_id, payload, next_at, created_at)
                        select d.w, d.e, d.p, :now, :now
                        from unnest(cast(:ws as uuid[]), cast(:es as uuid[]), cast(:ps as text[])) as d(w, e, p)
                        where exists (select 1 from webhooks x where x.id = d.w)
                        on conflict do nothing""")
                .param("ws", deliveries.stream().map(NewDelivery::webhookId).toArray(UUID[]::new))
                .param("es", deliveries.stream().map(NewDelivery::eventId).toArray(UUID[]::new))
                .param("ps", deliveries.stream().map(NewDelivery::payload).toArray(String[]::new))
                .param("now", JobRows.ts(clock.instant())).update();
    }

    /** Whether any tenant has a webhook: when none has, the fan-out need not read a batch's events at all. */
    public boolean any() {
        return jdbc.sql("select exists (select 1 from webhooks)").query(Boolean.class).single();
    }

    /** The webhooks of these tenants (their pending counts left at 0): what the fan-out matches a batch against. */
    public List<Webhook> ofTenants(Collection<UUID> tenantIds) {
        if (tenantIds.isEmpty()) {
            return List.of();
        }
        return jdbc.sql("select " + BASE_COLUMNS + ", 0 as pending from webhooks w where w.tenant_id = any(:ts)")
                .param("ts", tenantIds.toArray(UUID[]::new)).query(WEBHOOK).list();
    }

    /**
     * Claims up to {@code limit} deliveries due now for {@code lease}, at most {@code perWebhook} of each webhook (its
     * oldest), webhooks least recently tried first, none of those in {@code busy}: until the lease ends no other
     * dispatcher takes them; if this one dies, they are due again after it. A webhook's receiver that is slow to
     * answer holds back its own deliveries only.
     */
    public List<Delivery> claimDue(int limit, int perWebhook, Duration lease, Collection<UUID> busy) {
        Instant now = clock.instant();
        return jdbc.sql("""
                        with due as (
                            select d.webhook_id, d.event_id
                            from (select id from webhooks where id <> all(:busy)
                                  order by last_attempt_at nulls first) w
                            cross join lateral (
                                select webhook_id, event_id from webhook_deliveries
                                where webhook_id = w.id and next_at <= :now
                                order by next_at limit :per for update skip locked) d
                            limit :limit)
                        update webhook_deliveries d set tries = d.tries + 1, next_at = :until
                        from due, webhooks w, tenants t
                        where d.webhook_id = due.webhook_id and d.event_id = due.event_id and w.id = d.webhook_id
                          and t.id = w.tenant_id
                        returning d.webhook_id, d.event_id, d.payload, d.tries, w.url, w.secret, t.allow_private_webhooks""")
                .param("now", JobRows.ts(now)).param("limit", limit).param("per", perWebhook)
                .param("busy", busy.toArray(UUID[]::new)).param("until", JobRows.ts(now.plus(lease)))
                .query((rs, n) -> new Delivery(rs.getObject(1, UUID.class), rs.getObject(2, UUID.class), rs.getString(3),
                        rs.getInt(4), rs.getString(5), rs.getString(6), rs.getBoolean(7)))
                .list();
    }

    /** A delivery answered 2xx: gone, and its webhook's row says so. */
    public void delivered(Delivery d, int status) {
        transactions.executeWithoutResult(tx -> deliveredLocked(d, status));
    }

    private void deliveredLocked(Delivery d, int status) {
        Instant now = clock.instant();
        jdbc.sql("delete from webhook_deliveries where webhook_id = :w and event_id = :e")
                .param("w", d.webhookId()).param("e", d.eventId()).update();
        jdbc.sql("""
                        update webhooks set last_status = :s, last_error = null, last_attempt_at = :now,
                            last_delivered_at = :now where id = :w""")
                .param("s", status).param("now", JobRows.ts(now)).param("w", d.webhookId()).update();
    }

    /**
     * A try that failed ({@code status} 0 when nothing answered): tried again after {@code retryAfter}, or, when that
     * is null, given up and counted.
     */
    public void failed(Delivery d, int status, String error, Duration retryAfter) {
        transactions.executeWithoutResult(tx -> failedLocked(d, status, error, retryAfter));
    }

    private void failedLocked(Delivery d, int status, String error, Duration retryAfter) {
        Instant now = clock.instant();
        if (retryAfter == null) {
            jdbc.sql("delete from webhook_deliveries where webhook_id = :w and event_id = :e")
                    .param("w", d.webhookId()).param("e", d.eventId()).update();
        } else {
            jdbc.sql("update webhook_deliveries set next_at = :at where webhook_id = :w and event_id = :e")
                    .param("at", JobRows.ts(now.plus(retryAfter))).param("w", d.webhookId()).param("e", d.eventId())
                    .update();
        }
        jdbc.sql("""
                        update webhooks set last_status = :s, last_error = :err, last_attempt_at = :now,
                            given_up = given_up + :gave where id = :w""")
                .param("s", status).param("err", error.length() > 500 ? error.substring(0, 500) : error)
                .param("now", JobRows.ts(now)).param("gave", retryAfter == null ? 1 : 0).param("w", d.webhookId())
                .update();
    }
}
