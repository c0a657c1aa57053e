package io.fleetjobs.deploy.compose;

import io.fleetjobs.deploy.Repo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * What one Maven module's own files say about how it is run: the jar its pom builds, its {@code server.port}, and
 * the environment variables its configuration reads: placeholders in {@code application*.yml|properties} and in
 * the Java sources of the module and of the io.fleetjobs modules it depends on, {@code System.getenv}, and the
 * relaxed-binding names of its application.yml keys and of its {@code @ConfigurationProperties} records.
 */
final class ModuleConfig {
    private static final String GROUP = "io.fleetjobs";
    /** Spring Boot's own properties that the deployment files set on every Spring Boot application. */
    private static final Set<String> BOOT_PROPERTIES = Set.of("LOGGING_STRUCTURED_FORMAT_CONSOLE",
            // compose gives the secrets as files: spring.config.import=configtree:<folder>
            "SPRING_CONFIG_IMPORT");
    /** Read by every JVM. */
    private static final Set<String> JVM_VARIABLES = Set.of("JAVA_TOOL_OPTIONS");
    private static final Pattern GETENV = Pattern.compile("System\\.getenv\\(\"([A-Z][A-Z0-9_]*)\"\\)");
    private static final Pattern PROPERTIES_ANNOTATION =
            Pattern.compile("@ConfigurationProperties\\((?:prefix\\s*=\\s*|value\\s*=\\s*)?\"([^\"]+)\"\\)");
    private static final Pattern RECORD = Pattern.compile("\\brecord\\s+(\\w+)\\s*\\(");

    final String name;
    final Path dir;
    private final Document pom;
    private final Map<String, Object> applicationKeys = new LinkedHashMap<>();
    private final List<Placeholder> configPlaceholders = new ArrayList<>();
    private final List<Placeholder> codePlaceholders = new ArrayList<>();
    private final Set<String> getenvNames = new LinkedHashSet<>();
    /** Exact environment names of {@code @ConfigurationProperties} components. */
    private final Set<String> boundNames = new LinkedHashSet<>();
    /** Prefixes under which any name binds (components that are maps). */
    private final Set<String> boundPrefixes = new LinkedHashSet<>();
    private final boolean springBoot;

    private ModuleConfig(String name) {
        this.name = name;
        this.dir = Repo.path(name);
        this.pom = xml(dir.resolve("pom.xml"));
        readApplicationConfig();
        boolean boot = false;
        for (Path source : javaSources()) {
            String text = read(source);
            codePlaceholders.addAll(Placeholder.findAll(text));
            Matcher env = GETENV.matcher(text);
            while (env.find()) {
                getenvNames.add(env.group(1));
            }
            readConfigurationProperties(text);
            boot |= source.startsWith(dir) && text.contains("@SpringBootApplication");
        }
        this.springBoot = boot;
    }

    static ModuleConfig of(String name) {
        return new ModuleConfig(name);
    }

    /** The modules of the root pom, as it names them: their folders, relative to the root. */
    static List<String> modules() {
        Document root = xml(Repo.path("pom.xml"));
        List<String> modules = new ArrayList<>();
        for (Element module : children(first(root.getDocumentElement(), "modules"), "module")) {
            modules.add(module.getTextContent().strip());
        }
        return modules;
    }

    /** The modules of the root pom that build an executable jar (those with spring-boot-maven-plugin). */
    static List<String> runnableModules() {
        List<String> runnable = new ArrayList<>();
        for (String name : modules()) {
            Document pom = xml(Repo.path(name).resolve("pom.xml"));
            if (plugin(pom, "spring-boot-maven-plugin") != null) {
                runnable.add(name);
            }
        }
        return runnable;
    }

    /** The jar the build leaves in target/: finalName, and the repackaged jar's classifier where one is set. */
    String jarName() {
        Element build = first(pom.getDocumentElement(), "build");
        Element finalName = build == null ? null : first(build, "finalName");
        String base = finalName != null ? finalName.getTextContent().strip() : name + "-" + version();
        Element plugin = plugin(pom, "spring-boot-maven-plugin");
        NodeList classifiers = plugin == null ? null : plugin.getElementsByTagName("classifier");
        String classifier = classifiers == null || classifiers.getLength() == 0 ? null
                : classifiers.item(0).getTextContent().strip();
        return base + (classifier == null ? "" : "-" + classifier) + ".jar";
    }

    /** {@code server.port} of application.yml; {@code null} for a module without a web server. */
    Integer serverPort() {
        Object port = applicationKeys.get("server.port");
        return port == null ? null : Integer.valueOf(String.valueOf(port).strip());
    }

    /**
     * {@code management.server.port} of application.yml: the actuator's own port (prometheus, metrics, info); the
     * default of a placeholder ({@code ${JOBS_MANAGEMENT_PORT:9081}}); {@code null} where it has none.
     */
    Integer managementPort() {
        Object port = applicationKeys.get("management.server.port");
        if (port == null) {
            return null;
        }
        String value = String.valueOf(port).strip();
        List<Placeholder> placeholders = Placeholder.findAll(value);
        return Integer.valueOf(placeholders.isEmpty() ? value : placeholders.getFirst().fallback().strip());
    }

    boolean hasActuator() {
        return dependencyArtifacts().contains("spring-boot-starter-actuator");
    }

    boolean isSpringBootApplication() {
        return springBoot;
    }

    /** An application.yml value, flattened ({@code management.endpoints.web.exposure.include}). */
    String applicationValue(String key) {
        Object value = applicationKeys.get(key);
        return value == null ? null : String.valueOf(value);
    }

    /** Whether this module's configuration reads the environment variable {@code variable}. */
    boolean reads(String variable, String dockerfile) {
        if (JVM_VARIABLES.contains(variable)) {
            return true;
        }
        if (variable.equals("JAVA_OPTS")) {
            return dockerfile.contains("$JAVA_OPTS");
        }
        if (springBoot && BOOT_PROPERTIES.contains(variable)) {
            return true;
        }
        if (getenvNames.contains(variable) || boundNames.contains(variable)
                || boundPrefixes.stream().anyMatch(variable::startsWith)) {
            return true;
        }
        if (Stream.concat(configPlaceholders.stream(), codePlaceholders.stream())
                .anyMatch(p -> p.environmentNames().contains(variable))) {
            return true;
        }
        return springBoot && applicationKeys.keySet().stream()
                .anyMatch(key -> Placeholder.environmentForms(key).contains(variable));
    }

    /**
     * The variables a container must be given, each as the set of names any one of which will do: placeholders of
     * application.yml, and of the code where they name an environment variable, whose default is empty or this
     * host; and what the code reads with {@code System.getenv}.
     */
    List<Set<String>> required() {
        List<Set<String>> required = new ArrayList<>();
        Stream.concat(configPlaceholders.stream(), codePlaceholders.stream().filter(Placeholder::namesEnvironmentVariable))
                .filter(Placeholder::requiredInContainer)
                .map(p -> Set.copyOf(p.environmentNames()))
                .distinct()
                .forEach(required::add);
        // NAME and NAME_FILE (a file holding it) read together: either will do
        getenvNames.stream().filter(n -> n.startsWith("JOBS_"))
                .filter(n -> !(n.endsWith("_FILE") && getenvNames.contains(n.substring(0, n.length() - "_FILE".length()))))
                .map(n -> getenvNames.contains(n + "_FILE") ? Set.of(n, n + "_FILE") : Set.of(n))
                .forEach(required::add);
        return required;
    }

    /** Names bound through {@code @ConfigurationProperties}, for tests of this reader itself. */
    Set<String> boundNames() {
        return Set.copyOf(boundNames);
    }

    private void readApplicationConfig() {
        Path resources = dir.resolve("src/main/resources");
        if (!Files.isDirectory(resources)) {
            return;
        }
        try (Stream<Path> files = Files.list(resources)) {
            for (Path file : files.sorted().toList()) {
                String fileName = file.getFileName().toString();
                if (!fileName.startsWith("application")) {
                    continue;
                }
                String text = read(file);
                if (fileName.endsWith(".yml") || fileName.endsWith(".yaml")) {
                    for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(text)) {
                        flatten("", document, applicationKeys);
                    }
                } else if (fileName.endsWith(".properties")) {
                    Properties properties = new Properties();
                    properties.load(new java.io.StringReader(text));
                    properties.forEach((k, v) -> applicationKeys.put(String.valueOf(k), v));
                } else {
                    continue;
                }
                configPlaceholders.addAll(Placeholder.findAll(text));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static void flatten(String prefix, Object node, Map<String, Object> into) {
        if (node instanceof Map<?, ?> map) {
            map.forEach((k, v) -> flatten(prefix.isEmpty() ? String.valueOf(k) : prefix + "." + k, v, into));
        } else if (node instanceof List<?> list) {
            into.put(prefix, String.join(",", list.stream().map(String::valueOf).toList()));
        } else if (!prefix.isEmpty()) {
            into.put(prefix, node);
        }
    }

    /** {@code @ConfigurationProperties("p") record R(Type name, ...)}: the names that bind to its components. */
    private void readConfigurationProperties(String text) {
        Matcher annotation = PROPERTIES_ANNOTATION.matcher(text);
        if (!annotation.find()) {
            return;
        }
        String prefix = Placeholder.environmentForms(annotation.group(1)).getLast();
        Map<String, String> records = new HashMap<>();
        Matcher record = RECORD.matcher(text);
        while (record.find()) {
            int open = record.end() - 1;
            records.put(record.group(1), text.substring(open + 1, closingParenthesis(text, open)));
        }
        Matcher top = RECORD.matcher(text.substring(annotation.end()));
        if (!top.find()) {
            throw new IllegalStateException("@ConfigurationProperties(\"" + annotation.group(1)
                    + "\") on something else than a record: teach ModuleConfig to read it");
        }
        bind(prefix, records.get(top.group(1)), records, 0);
    }

    private void bind(String prefix, String components, Map<String, String> records, int depth) {
        for (String component : splitComponents(components)) {
            String[] typeAndName = component.strip().split("\\s+(?=\\w+$)");
            String type = typeAndName[0].strip();
            String property = kebab(typeAndName[1]).toUpperCase(java.util.Locale.ROOT);
            String env = prefix + "_" + property.replace('-', '_');
            boundNames.add(env);
            boundNames.add(prefix + "_" + property.replace("-", "")); // the canonical form
            if (type.startsWith("Map<")) {
                boundPrefixes.add(env + "_");
            } else if (records.containsKey(type) && depth < 5) {
                bind(env, records.get(type), records, depth + 1);
            }
        }
    }

    /** Components at the top level of a record header, annotations removed. */
    private static List<String> splitComponents(String header) {
        String plain = header.replaceAll("@\\w+(\\.\\w+)*(\\([^)]*\\))?", " ");
        List<String> parts = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (char c : plain.toCharArray()) {
            if (c == '<') {
                depth++;
            } else if (c == '>') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                parts.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        if (!current.toString().isBlank()) {
            parts.add(current.toString());
        }
        return parts.stream().filter(p -> !p.isBlank()).toList();
    }

    private static int closingParenthesis(String text, int open) {
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
        }
        throw new IllegalStateException("unbalanced record header");
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** This module's main sources and those of the io.fleetjobs modules it depends on (not for tests), transitively. */
    private List<Path> javaSources() {
        Set<String> modules = new LinkedHashSet<>();
        collectModules(name, modules);
        List<Path> sources = new ArrayList<>();
        for (String module : modules) {
            Path main = Repo.path(module).resolve("src/main/java");
            if (Files.isDirectory(main)) {
                try (Stream<Path> walk = Files.walk(main)) {
                    walk.filter(p -> p.toString().endsWith(".java")).sorted().forEach(sources::add);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return sources;
    }

    private static void collectModules(String module, Set<String> into) {
        if (!into.add(module)) {
            return;
        }
        Document modulePom = xml(Repo.path(module).resolve("pom.xml"));
        Element dependencies = first(modulePom.getDocumentElement(), "dependencies");
        for (Element dependency : children(dependencies, "dependency")) {
            String group = text(dependency, "groupId");
            String scope = text(dependency, "scope");
            if (GROUP.equals(group) && (scope == null || scope.equals("compile") || scope.equals("runtime"))
                    && Files.isDirectory(Repo.path(text(dependency, "artifactId")))) {
                collectModules(text(dependency, "artifactId"), into);
            }
        }
    }

    private Set<String> dependencyArtifacts() {
        Set<String> artifacts = new LinkedHashSet<>();
        for (Element dependency : children(first(pom.getDocumentElement(), "dependencies"), "dependency")) {
            artifacts.add(text(dependency, "artifactId"));
        }
        return artifacts;
    }

    private String version() {
        String own = text(pom.getDocumentElement(), "version");
        return own != null ? own : text(first(pom.getDocumentElement(), "parent"), "version");
    }

    private static Element plugin(Document pom, String artifactId) {
        Element build = first(pom.getDocumentElement(), "build");
        Element plugins = build == null ? null : first(build, "plugins");
        for (Element plugin : children(plugins, "plugin")) {
            if (artifactId.equals(text(plugin, "artifactId"))) {
                return plugin;
            }
        }
        return null;
    }

    private static Document xml(Path file) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(file.toFile());
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + file, e);
        }
    }

    private static Element first(Element parent, String tag) {
        List<Element> found = children(parent, tag);
        return found.isEmpty() ? null : found.getFirst();
    }

    private static List<Element> children(Element parent, String tag) {
        List<Element> found = new ArrayList<>();
        if (parent == null) {
            return found;
        }
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                found.add(e);
            }
        }
        return found;
    }

    private static String text(Element parent, String tag) {
        Element child = first(parent, tag);
        return child == null ? null : child.getTextContent().strip();
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
