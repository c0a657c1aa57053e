package io.fleetjobs.jobservice.api;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import io.fleetjobs.store.JobLogContext;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.boot.logging.logback.StructuredLogEncoder;
import org.springframework.core.env.Environment;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A line logged about a job, in the JSON Boot writes with {@code logging.structured.format.console=ecs}
 * (the same encoder that {@code LOGGING_STRUCTURED_FORMAT_CONSOLE=ecs} switches on), carries the job's ids.
 */
class JobLogJsonTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    private final Logger logger = context.getLogger("io.fleetjobs.test.JobLogJson");
    private OutputStreamAppender<ILoggingEvent> appender;

    @BeforeEach
    void attachEcsEncoder() {
        if (context.getObject(Environment.class.getName()) == null) { // Boot puts it there when it starts logging
            context.putObject(Environment.class.getName(), new MockEnvironment().withProperty("spring.application.name", "job-service"));
        }
        StructuredLogEncoder encoder = new StructuredLogEncoder();
        encoder.setContext(context);
        encoder.setFormat("ecs");
        encoder.setCharset(StandardCharsets.UTF_8);
        encoder.start();
        appender = new OutputStreamAppender<>();
        appender.setContext(context);
        appender.setEncoder(encoder);
        appender.setOutputStream(out);
        appender.start();
        logger.addAppender(appender);
        logger.setAdditive(false);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(appender);
        appender.stop();
    }

    private JsonNode onlyLine() {
        String[] lines = out.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertThat(lines).hasSize(1);
        return JsonMapper.builder().build().readTree(lines[0]);
    }

    @Test
    void aLineWrittenInAJobsContextCarriesItsIdsAsJsonFields() {
        UUID job = UUID.randomUUID();
        try (var ignored = JobLogContext.of(job, 2, "gpu-7")) {
            logger.info("attempt ended");
        }
        JsonNode line = onlyLine();
        assertThat(line.get("message").asString()).isEqualTo("attempt ended");
        assertThat(line.get("jobId").asString()).isEqualTo(job.toString());
        assertThat(line.get("attemptId").asString()).isEqualTo(job + "/2");
        assertThat(line.get("machineId").asString()).isEqualTo("gpu-7");
        assertThat(MDC.get(JobLogContext.JOB_ID)).isNull();
    }

    @Test
    void aLineOutsideAnyJobCarriesNoJobId() {
        logger.info("nothing about a job");
        assertThat(onlyLine().has("jobId")).isFalse();
    }

    @Test
    void aRequestForAJobPutsItsIdInTheContextForTheRequestOnly() throws Exception {
        UUID job = UUID.randomUUID();
        AtomicReference<String> seen = new AtomicReference<>();
        new JobRequestLogContext().doFilter(new MockHttpServletRequest("POST", "/api/v1/jobs/" + job + "/cancel"),
                new MockHttpServletResponse(), (req, res) -> seen.set(MDC.get(JobLogContext.JOB_ID)));
        assertThat(seen.get()).isEqualTo(job.toString());
        assertThat(MDC.get(JobLogContext.JOB_ID)).isNull();
        assertThat(JobRequestLogContext.jobId("/api/v1/jobs")).isNull();
        assertThat(JobRequestLogContext.jobId("/api/v1/jobs/not-a-uuid-at-all-but-36-characters-x")).isNull();
    }
}
