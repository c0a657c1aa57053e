package io.fleetjobs.deploy.compose;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Dockerfile as instructions (comments dropped, continued lines joined), split into its stages. */
final class Dockerfile {
    private static final Pattern ARG_DEFAULT = Pattern.compile("(\\w+)=(\\S+)");

    record Instruction(String keyword, String arguments) {
        @Override
        public String toString() {
            return keyword + " " + arguments;
        }
    }

    /** The instructions before the first FROM (global ARGs). */
    final List<Instruction> preamble = new ArrayList<>();
    /** Each stage, starting with its FROM. */
    final List<List<Instruction>> stages = new ArrayList<>();
    final String text;

    private Dockerfile(String text) {
        this.text = text;
        StringBuilder logical = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            String stripped = line.strip();
            if (stripped.startsWith("#") || (stripped.isEmpty() && logical.isEmpty())) {
                continue; // a comment, also between continued lines, as Docker reads it
            }
            if (stripped.endsWith("\\")) {
                logical.append(stripped, 0, stripped.length() - 1).append(' ');
                continue;
            }
            logical.append(stripped);
            add(logical.toString().strip());
            logical.setLength(0);
        }
        if (!logical.isEmpty()) {
            add(logical.toString().strip());
        }
    }

    static Dockerfile read(Path file) {
        return new Dockerfile(ModuleConfig.read(file));
    }

    private void add(String line) {
        if (line.isEmpty()) {
            return;
        }
        String[] parts = line.split("\\s+", 2);
        Instruction instruction = new Instruction(parts[0].toUpperCase(Locale.ROOT),
                parts.length > 1 ? parts[1].replaceAll("\\s+", " ") : "");
        if (instruction.keyword().equals("FROM")) {
            stages.add(new ArrayList<>(List.of(instruction)));
        } else if (stages.isEmpty()) {
            preamble.add(instruction);
        } else {
            stages.getLast().add(instruction);
        }
    }

    /** The stage named {@code name} ({@code FROM image AS name}). */
    List<Instruction> stage(String name) {
        return stages.stream()
                .filter(s -> s.getFirst().arguments().toLowerCase(Locale.ROOT).endsWith(" as " + name))
                .findFirst().orElseThrow(() -> new AssertionError("no stage " + name));
    }

    List<Instruction> finalStage() {
        return stages.getLast();
    }

    /** The image a stage starts from, with the global ARGs' defaults put in. */
    String baseImage(List<Instruction> stage) {
        Map<String, String> args = new LinkedHashMap<>();
        for (Instruction arg : preamble) {
            Matcher m = ARG_DEFAULT.matcher(arg.arguments());
            if (arg.keyword().equals("ARG") && m.matches()) {
                args.put(m.group(1), m.group(2));
            }
        }
        String image = stage.getFirst().arguments().split(" ")[0];
        for (var e : args.entrySet()) {
            image = image.replace("${" + e.getKey() + "}", e.getValue()).replace("$" + e.getKey(), e.getValue());
        }
        return image;
    }

    static List<Instruction> all(List<Instruction> stage, String keyword) {
        return stage.stream().filter(i -> i.keyword().equals(keyword)).toList();
    }
}
