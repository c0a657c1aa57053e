package io.fleetjobs.jobctl;

import io.fleetjobs.sdk.model.ApiKey;
import io.fleetjobs.sdk.model.ApiKeyInfo;
import io.fleetjobs.sdk.model.ApiKeyInfoList;
import io.fleetjobs.sdk.model.Quota;
import io.fleetjobs.sdk.model.Tenant;
import io.fleetjobs.sdk.model.TenantChange;
import io.fleetjobs.sdk.model.TenantList;
import java.math.BigDecimal;
import java.util.Map;
import java.util.UUID;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code jobctl admin tenants list|get|update} and {@code jobctl admin keys list|issue|revoke}: the operator's API
 * (an admin's token). Tables by default, the API's JSON with {@code -o json}.
 */
final class AdminCommands {
    private AdminCommands() {
    }

    @Command(name = "admin", description = "Tenants and API keys (an admin's token).",
            subcommands = {Tenants.class, Keys.class, CommandLine.HelpCommand.class})
    static final class Admin {
    }

    @Command(name = "tenants", description = "Lists, shows and changes tenants.",
            subcommands = {ListTenants.class, GetTenant.class, UpdateTenant.class, CommandLine.HelpCommand.class})
    static final class Tenants {
    }

    @Command(name = "keys", description = "Lists, issues and revokes a tenant's API keys.",
            subcommands = {ListKeys.class, IssueKey.class, RevokeKey.class, CommandLine.HelpCommand.class})
    static final class Keys {
    }

    /** Prints tenants as a table, or the API's JSON as it came. */
    abstract static class TenantOutput extends CommandBase {
        void print(String body, Tenant... tenants) {
            if (json()) {
                printJson(body);
                return;
            }
            Table t = new Table("NAME", "ID", "WEIGHT", "CPU", "MEMORY_MB", "GPUS", "MAX_LIVE_JOBS", "MAX_PRIORITY",
                    "PRIVATE_WEBHOOKS");
            for (Tenant tenant : tenants) {
                Quota q = tenant.getQuota() == null ? new Quota() : tenant.getQuota();
                t.row(tenant.getName(), tenant.getId(), tenant.getWeight(), q.getCpu(), q.getMemoryMb(), q.getGpuCount(),
                        q.getMaxLiveJobs(), q.getMaxPriority(), Boolean.TRUE.equals(tenant.getAllowPrivateWebhooks()) ? "allowed" : null);
            }
            t.print(out());
        }
    }

    @Command(name = "list", description = "Every tenant, by name (an absent quota is unlimited: -).")
    static final class ListTenants extends TenantOutput {
        @Override
        public Integer call() {
            String body = client().admin().listTenantsWithResponseSpec().body(String.class);
            print(body, json() ? new Tenant[0] : read(body, TenantList.class).getItems().toArray(Tenant[]::new));
            return JobCtl.OK;
        }
    }

    @Command(name = "get", description = "One tenant: weight and quota.")
    static final class GetTenant extends TenantOutput {
        @Parameters(paramLabel = "TENANT")
        String name;

        @Override
        public Integer call() {
            String body = client().admin().getTenantWithResponseSpec(name).body(String.class);
            print(body, json() ? new Tenant[0] : new Tenant[] {read(body, Tenant.class)});
            return JobCtl.OK;
        }
    }

    @Command(name = "update", description = {"Changes a tenant's weight or quota; what is not given stays.",
            "A quota option replaces the whole quota: the limits not given become unlimited."})
    static final class UpdateTenant extends TenantOutput {
        @Parameters(paramLabel = "TENANT")
        String name;

        @Option(names = "--weight", paramLabel = "N", description = "Its share of the fleet against other tenants (1-1000).")
        Integer weight;

        @Option(names = "--cpu", paramLabel = "CORES", description = "Quota: cores held at once.")
        BigDecimal cpu;

        @Option(names = "--memory-mb", paramLabel = "MB", description = "Quota: memory held at once.")
        Long memoryMb;

        @Option(names = "--gpus", paramLabel = "N", description = "Quota: GPUs held at once.")
        Integer gpus;

        @Option(names = "--max-live-jobs", paramLabel = "N", description = "Quota: jobs not yet ended at once.")
        Integer maxLiveJobs;

        @Option(names = "--max-priority", paramLabel = "N",
                description = "Quota: the highest priority its jobs may ask for (0-1000).")
        Integer maxPriority;

        @Option(names = "--no-quota", description = "Remove the quota: unlimited.")
        boolean noQuota;

        @Option(names = "--allow-private-webhooks", paramLabel = "true|false", arity = "1",
                description = "Let its webhooks reach loopback, private and link-local addresses.")
        Boolean allowPrivateWebhooks;

        @Override
        public Integer call() {
            boolean quotaGiven = cpu != null || memoryMb != null || gpus != null || maxLiveJobs != null
                    || maxPriority != null;
            if (noQuota && quotaGiven) {
                throw new JobCtl.CliException(JobCtl.USAGE, "--no-quota and a quota option exclude each other");
            }
            if (weight == null && !quotaGiven && !noQuota && allowPrivateWebhooks == null) {
                throw new JobCtl.CliException(JobCtl.USAGE, "nothing to change: give --weight, a quota option, "
                        + "--no-quota or --allow-private-webhooks");
            }
            TenantChange change = new TenantChange().weight(weight).allowPrivateWebhooks(allowPrivateWebhooks);
            if (quotaGiven || noQuota) {
                change.quota(new Quota().cpu(cpu).memoryMb(memoryMb).gpuCount(gpus).maxLiveJobs(maxLiveJobs)
                        .maxPriority(maxPriority));
            }
            String body = client().admin().updateTenantWithResponseSpec(name, change).body(String.class);
            print(body, json() ? new Tenant[0] : new Tenant[] {read(body, Tenant.class)});
            return JobCtl.OK;
        }
    }

    @Command(name = "list", description = "A tenant's keys: id, role, created, last used (late by up to a minute), revoked; never the key.")
    static final class ListKeys extends CommandBase {
        @Parameters(paramLabel = "TENANT")
        String tenant;

        @Override
        public Integer call() {
            String body = client().admin().listApiKeysWithResponseSpec(tenant).body(String.class);
            if (json()) {
                printJson(body);
                return JobCtl.OK;
            }
            Table t = new Table("ID", "ROLE", "CREATED", "LAST_USED", "REVOKED");
            for (ApiKeyInfo k : read(body, ApiKeyInfoList.class).getItems()) {
                t.row(k.getId(), k.getRole() + (Boolean.TRUE.equals(k.getBootstrap()) ? " (bootstrap)" : ""),
                        k.getCreatedAt(), k.getLastUsedAt(), Boolean.TRUE.equals(k.getRevoked()) ? k.getRevokedAt() : null);
            }
            t.print(out());
            return JobCtl.OK;
        }
    }

    @Command(name = "issue", description = "A new key for a tenant, printed once: keep it, it cannot be shown again.")
    static final class IssueKey extends CommandBase {
        @Parameters(paramLabel = "TENANT")
        String tenant;

        @Override
        public Integer call() {
            String body = client().admin().issueApiKeyWithResponseSpec(tenant, Map.of()).body(String.class);
            if (json()) {
                printJson(body);
            } else {
                ApiKey key = read(body, ApiKey.class);
                out().println("id:  " + key.getId());
                out().println("key: " + key.getKey());
                out().flush();
            }
            return JobCtl.OK;
        }
    }

    @Command(name = "revoke", description = "Revokes a key: it lets no one in any more (within the gateway's key cache, seconds).")
    static final class RevokeKey extends CommandBase {
        @Parameters(index = "0", paramLabel = "TENANT")
        String tenant;

        @Parameters(index = "1", paramLabel = "KEY_ID")
        String id;

        @Override
        public Integer call() {
            UUID keyId;
            try {
                keyId = UUID.fromString(id);
            } catch (IllegalArgumentException e) {
                throw new JobCtl.CliException(JobCtl.NOT_FOUND, "api key " + id + " not found (a key id is a UUID)");
            }
            client().admin().revokeApiKeyWithResponseSpec(tenant, keyId).toBodilessEntity();
            out().println("key " + keyId + " of tenant " + tenant + " revoked");
            out().flush();
            return JobCtl.OK;
        }
    }
}
