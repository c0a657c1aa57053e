package io.fleetjobs.agent.process;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Applies an {@link Egress} to the machine with {@code nft} (nftables), as root: the table of one machine's agent,
 * replaced whole at each start and removed at its stop. An agent killed leaves it in place, which is the safe side:
 * its attempts may outlive it until the next start's cleanup, and stay fenced meanwhile; the agent's machine directory
 * names the table ({@link ProcessRunner#EGRESS_TABLE_FILE}) for whoever removes it then (a launcher of agents, an
 * operator taking the machine out: {@code nft delete table inet <name>}).
 */
public final class EgressFence {
    private EgressFence() {
    }

    /** Applies the rules; empty when they hold, else why not (nft missing, not allowed, a rule refused). */
    public static Optional<String> apply(String table, Egress egress, int firstUid, int uidCount) {
        return nft(egress.nftScript(table, firstUid, uidCount));
    }

    /** Removes a machine's table, if there is one (tests, and a machine leaving the fleet). */
    public static Optional<String> remove(String table) {
        return nft("table inet " + table + " {\n}\ndelete table inet " + table + "\n");
    }

    private static Optional<String> nft(String script) {
        ProcessBuilder builder = new ProcessBuilder("nft", "-f", "-").redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().putAll(Sandbox.ROOT_ENVIRONMENT);
        try {
            Process nft = builder.start();
            try (OutputStream in = nft.getOutputStream()) {
                in.write(script.getBytes(StandardCharsets.UTF_8));
            }
            String output = new String(nft.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!nft.waitFor(10, TimeUnit.SECONDS)) {
                nft.destroyForcibly();
                return Optional.of("nft did not end within 10 s");
            }
            return nft.exitValue() == 0 ? Optional.empty()
                    : Optional.of("nft exited " + nft.exitValue() + (output.isEmpty() ? "" : ": " + output));
        } catch (IOException e) {
            return Optional.of("cannot run nft (nftables): " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        }
    }
}
