package io.fleetjobs.support;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.http.HttpStatus;

/**
 * What Tomcat answers for a request it refuses before any servlet sees it (a path with {@code %00} or an escape that
 * cannot be decoded): RFC 9457 problem+json like every other error of the API, in place of Tomcat's HTML page. Errors
 * that reach a service's servlet are answered by {@link ProblemErrors}; this valve writes only where nothing was.
 */
public class ProblemErrorValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int code = response.getStatus();
        if (code < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        AtomicBoolean writable = new AtomicBoolean(false);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, writable);
        if (!writable.get()) {
            return;
        }
        HttpStatus status = HttpStatus.resolve(code);
        String title = status == null ? "Error" : status.getReasonPhrase();
        String detail = status == null ? title : ProblemErrors.detail(status);
        try {
            response.setContentType("application/problem+json");
            response.setCharacterEncoding("UTF-8");
            Writer writer = response.getReporter();
            if (writer != null) {
                // title and detail are this class's own words, free of quotes and escapes
                writer.write("{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + code
                        + ",\"detail\":\"" + detail + "\"}");
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // the client is gone or the answer already started: nothing more to say
        }
    }
}
