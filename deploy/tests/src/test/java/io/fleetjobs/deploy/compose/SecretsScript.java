package io.fleetjobs.deploy.compose;

import io.fleetjobs.deploy.Repo;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * deploy/compose/secrets.sh as the tests read it: which file it writes into which folder, each folder named by the
 * variable that sets it ({@code FLEETJOBS_CONTROL_SECRETS}, {@code FLEETJOBS_AGENT_SECRETS}).
 */
final class SecretsScript {
    static final String PATH = "deploy/compose/secrets.sh";
    private static final Pattern FOLDER = Pattern.compile("(?m)^(\\w+)=\\$\\{(FLEETJOBS_\\w+):-([^}]+)}$");
    private static final Pattern SECRET = Pattern.compile("(?m)^secret \"\\$(\\w+)\" (\\S+) ");

    /** Folder variable (FLEETJOBS_...) → the file names written there. */
    final Map<String, Set<String>> files = new LinkedHashMap<>();
    /** Folder variable → its default path. */
    final Map<String, String> defaults = new LinkedHashMap<>();
    final String text;

    private SecretsScript(String text) {
        this.text = text;
        Map<String, String> variableOf = new LinkedHashMap<>();
        Matcher folder = FOLDER.matcher(text);
        while (folder.find()) {
            variableOf.put(folder.group(1), folder.group(2));
            defaults.put(folder.group(2), folder.group(3));
            files.put(folder.group(2), new LinkedHashSet<>());
        }
        Matcher secret = SECRET.matcher(text);
        while (secret.find()) {
            String variable = variableOf.get(secret.group(1));
            if (variable == null) {
                throw new IllegalStateException(PATH + " writes into $" + secret.group(1) + ", not a folder it names");
            }
            files.get(variable).add(secret.group(2));
        }
    }

    static SecretsScript read() {
        return new SecretsScript(ModuleConfig.read(path()));
    }

    static Path path() {
        return Repo.path(PATH);
    }
}
