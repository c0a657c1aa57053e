package io.fleetjobs.jobservice;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The document job-service serves at {@code /v3/api-docs} agrees with the contract kept in the repository
 * ({@code api/openapi.yaml}, the source of the SDK): the same operations (method and path, path parameters
 * compared by position, not name) with the same operation ids, and the same property names in the key schemas.
 * Structure is compared, never formatting.
 */
class OpenApiContractTest extends JobServiceTestBase {
    private static final Path CONTRACT = Path.of("..", "api", "openapi.yaml");
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");
    /** In the contract for job-service, and served once the change that adds it lands; until then not required. */
    private static final Set<String> ANNOUNCED = Set.of("DELETE /api/v1/admin/tenants/{}/api-keys/{}");

    private JsonNode served;
    private JsonNode contract;

    @BeforeEach
    void documents() throws Exception {
        var response = admin.as(null).get("/v3/api-docs");
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        served = JsonMapper.builder().build().readTree(response.body());
        contract = YAMLMapper.builder().build().readTree(Files.readString(CONTRACT));
    }

    @Test
    void theServedDocumentIsPublic() {
        assertThat(served.path("openapi").asString()).startsWith("3.");
        assertThat(served.path("paths").has("/api/v1/jobs")).isTrue();
    }

    @Test
    void everyOperationServedIsInTheContractAndViceVersa() {
        Map<String, String> servedOps = operations(served, null);
        Map<String, String> contractOps = operations(contract, "job-service");
        assertThat(servedOps.keySet()).as("served by job-service but missing from api/openapi.yaml")
                .isSubsetOf(contractOps.keySet());
        Set<String> expected = new TreeSet<>(contractOps.keySet());
        expected.removeAll(ANNOUNCED);
        assertThat(servedOps.keySet()).as("in api/openapi.yaml for job-service but not served").containsAll(expected);
        servedOps.forEach((op, id) -> assertThat(id).as("operationId of " + op).isEqualTo(contractOps.get(op)));
    }

    @Test
    void theKeySchemasHaveTheSameProperties() {
        for (String schema : new String[] {"JobSpec", "Job", "Resources", "Placement", "Execution", "RetryPolicy"}) {
            assertThat(properties(served, schema)).as(schema).isNotEmpty().isEqualTo(properties(contract, schema));
        }
    }

    @Test
    void theContractNamesEveryOperationsServiceAndDeclaresBearerSecurity() {
        operations(contract, null).keySet().forEach(op -> assertThat(op).isNotBlank());
        contract.path("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
            if (METHODS.contains(op.getKey())) {
                assertThat(op.getValue().path("x-served-by").asString()).as(path.getKey() + " " + op.getKey())
                        .isIn("job-service", "scheduler-service");
            }
        }));
        assertThat(contract.path("components").path("securitySchemes").path("bearerAuth").path("scheme").asString())
                .isEqualTo("bearer");
    }

    /** "METHOD /path/{}" to operationId, for the operations of {@code service} (all when null). */
    private static Map<String, String> operations(JsonNode document, String service) {
        Map<String, String> ops = new TreeMap<>();
        document.path("paths").properties().forEach(path -> path.getValue().properties().forEach(op -> {
            if (METHODS.contains(op.getKey())
                    && (service == null || service.equals(op.getValue().path("x-served-by").asString()))) {
                String key = op.getKey().toUpperCase() + " " + path.getKey().replaceAll("\\{[^}]*}", "{}");
                ops.put(key, op.getValue().path("operationId").asString());
            }
        }));
        return ops;
    }

    private static Set<String> properties(JsonNode document, String schema) {
        Set<String> names = new TreeSet<>();
        document.path("components").path("schemas").path(schema).path("properties").propertyNames().forEach(names::add);
        return names;
    }
}
