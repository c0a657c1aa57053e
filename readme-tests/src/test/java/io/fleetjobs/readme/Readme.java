package io.fleetjobs.readme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * README.md as sections and fenced code blocks, and a shell block as the commands bash would read from it (one
 * per complete command, however many lines it spans: bash itself says when a command is complete).
 */
record Readme(List<Section> sections) {
    record Section(String title, List<Block> blocks) {
    }

    /** A fenced block: its language (the word after the opening fence, or "") and its lines. */
    record Block(String language, String text) {
        /** The complete commands of a shell block, in order, comment-only and blank lines left out. */
        List<String> commands() {
            List<String> commands = new ArrayList<>();
            StringBuilder pending = new StringBuilder();
            for (String line : text.lines().toList()) {
                if (pending.isEmpty() && (line.isBlank() || line.strip().startsWith("#"))) {
                    continue;
                }
                pending.append(line).append('\n');
                if (complete(pending.toString())) {
                    commands.add(pending.toString().stripTrailing());
                    pending.setLength(0);
                }
            }
            if (!pending.isEmpty()) {
                throw new IllegalStateException("a command that never ends: " + pending);
            }
            return commands;
        }

        /** Whether bash reads {@code text} as whole commands (no open quote, no trailing backslash, no open bracket). */
        private static boolean complete(String text) {
            if (text.stripTrailing().endsWith("\\")) {
                return false;
            }
            try {
                Process bash = new ProcessBuilder("bash", "-n").redirectErrorStream(true).start();
                bash.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
                bash.getOutputStream().close();
                bash.getInputStream().readAllBytes();
                if (!bash.waitFor(10, TimeUnit.SECONDS)) {
                    bash.destroyForcibly();
                    throw new IllegalStateException("bash -n did not answer");
                }
                return bash.exitValue() == 0;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    static Readme read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Readme parse(String markdown) {
        List<Section> sections = new ArrayList<>();
        String title = "";
        List<Block> blocks = new ArrayList<>();
        String fence = null;
        String language = null;
        StringBuilder body = new StringBuilder();
        for (String line : markdown.lines().toList()) {
            if (fence != null) {
                if (line.strip().equals(fence)) {
                    blocks.add(new Block(language, body.toString()));
                    fence = null;
                    body.setLength(0);
                } else {
                    body.append(line).append('\n');
                }
            } else if (line.startsWith("```")) {
                fence = "```";
                language = line.substring(3).strip();
            } else if (line.startsWith("#")) {
                sections.add(new Section(title, blocks));
                title = line.replaceFirst("^#+\\s*", "").strip();
                blocks = new ArrayList<>();
            }
        }
        sections.add(new Section(title, blocks));
        return new Readme(List.copyOf(sections));
    }

    /** The section of that title; it must exist, once. */
    Section section(String title) {
        List<Section> found = sections.stream().filter(s -> s.title().equals(title)).toList();
        if (found.size() != 1) {
            throw new IllegalStateException("README.md has " + found.size() + " sections titled '" + title + "'; it has "
                    + sections.stream().map(Section::title).toList());
        }
        return found.getFirst();
    }

    /** The commands of the section's shell blocks ({@code sh} or {@code bash}), in order. */
    List<String> shellCommands(String title) {
        return section(title).blocks().stream().filter(b -> b.language().equals("sh") || b.language().equals("bash"))
                .flatMap(b -> b.commands().stream()).toList();
    }

    /** The text of the section's blocks in {@code language}. */
    List<String> blocks(String title, String language) {
        return section(title).blocks().stream().filter(b -> b.language().equals(language)).map(Block::text).toList();
    }
}
