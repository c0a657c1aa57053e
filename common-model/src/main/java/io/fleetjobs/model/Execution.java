package io.fleetjobs.model;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * What the agent runs: an argv (no shell unless the job asks for one), extra environment, an optional time limit per
 * attempt, and its network. Each argument and value is at most 65,536 characters and fits what exec takes for one
 * string ({@link ExecString}).
 *
 * @param network {@value #HOST_NETWORK} (or absent): the machine's network, as every process of the machine;
 *                {@value #NO_NETWORK}: a network of its own with only its loopback, where it reaches nothing beyond
 *                itself and nothing reaches it (not another job of the machine, not a neighbour); only on machines
 *                that sandbox their jobs
 */
public record Execution(
        @NotEmpty @Size(max = 1024) List<@NotNull @Size(max = 65536, message = "must be at most 65536 characters") @ExecString String> command,
        @Size(max = 256) Map<@NotNull @jakarta.validation.constraints.Pattern(regexp = "[A-Za-z_][A-Za-z0-9_]{0,127}",
                message = "must be an environment variable name") String,
                @NotNull @Size(max = 65536, message = "must be at most 65536 characters")
                @ExecString(maxBytes = ExecString.VALUE_BYTES) String> env,
        @Positive @Max(31_536_000) Integer timeoutSeconds,
        @jakarta.validation.constraints.Pattern(regexp = HOST_NETWORK + "|" + NO_NETWORK,
                message = "must be " + HOST_NETWORK + " or " + NO_NETWORK) String network) {
    public static final String HOST_NETWORK = "host";
    public static final String NO_NETWORK = "none";

    public Execution {
        command = Copies.list(command, null);
        env = Copies.map(env);
    }

    public Execution(List<String> command, Map<String, String> env, Integer timeoutSeconds) {
        this(command, env, timeoutSeconds, null);
    }

    /** Whether it runs in a network of its own ({@value #NO_NETWORK}). */
    public boolean ownNetwork() {
        return NO_NETWORK.equals(network);
    }

    public static Execution of(String... command) {
        return new Execution(List.of(command), Map.of(), null);
    }
}
