package io.fleetjobs.model;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * What the agent runs: an argv (no shell unless the job asks for one), extra environment, and an
 * optional time limit per attempt. Each argument and value is at most 65,536 characters and fits what exec takes for one
 * string ({@link ExecString}).
 */
public record Execution(
        @NotEmpty @Size(max = 1024) List<@NotNull @Size(max = 65536) @ExecString String> command,
        @Size(max = 256) Map<@NotNull @jakarta.validation.constraints.Pattern(regexp = "[A-Za-z_][A-Za-z0-9_]{0,127}",
                message = "must be an environment variable name") String,
                @NotNull @Size(max = 65536) @ExecString(maxBytes = ExecString.VALUE_BYTES) String> env,
        @Positive @Max(31_536_000) Integer timeoutSeconds) {

    public Execution {
        command = Copies.list(command, null);
        env = Copies.map(env);
    }

    public static Execution of(String... command) {
        return new Execution(List.of(command), Map.of(), null);
    }
}
