package io.fleetjobs.jobservice.api;

import io.swagger.v3.oas.annotations.Hidden;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

/**
 * HEAD on a live stream ({@code follow=true}) is 405: Spring answers a HEAD with the GET's handler, and the server
 * drops that answer's body, so the stream's writes never fail and it never learns that its client left. It held one
 * of the tenant's stream places for good, and the connection it came on (a gateway's pooled one). The gateway refuses
 * it too ({@code FrontDoor.isStreamHead}); this holds for a caller that reaches the service another way.
 */
@RestController
class StreamHeads {
    @Hidden
    @RequestMapping(method = RequestMethod.HEAD, params = "follow=true", path = {"/api/v1/events",
            "/api/v1/jobs/{id}/events", "/api/v1/jobs/{id}/attempts/{attempt}/logs"})
    ResponseEntity<Void> head() {
        return ResponseEntity.status(HttpStatus.METHOD_NOT_ALLOWED).allow(HttpMethod.GET).build();
    }
}
