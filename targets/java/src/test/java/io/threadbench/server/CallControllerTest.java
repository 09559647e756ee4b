package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.mock.web.MockHttpServletRequest;

/** CallControllerTest covers a target started without DOWNSTREAM_URL, which the booted tests have. */
class CallControllerTest {

    private final CallController controller = new CallController(TargetInfo.from(new MockEnvironment()), new Downstream(""));

    private static MockHttpServletRequest request(String query) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/x");
        request.setQueryString(query);
        return request;
    }

    @Test
    void noDownstreamIs503() {
        DownstreamException fanout = assertThrows(DownstreamException.class, () -> controller.fanout(request(null)));
        DownstreamException downstream = assertThrows(DownstreamException.class,
                () -> controller.downstream(request("duration=5")));
        for (DownstreamException e : new DownstreamException[] {fanout, downstream}) {
            assertEquals(HttpStatus.SERVICE_UNAVAILABLE, e.status());
            assertEquals("no downstream is configured: set DOWNSTREAM_URL", e.getMessage());
        }
    }

    @Test
    void badParameterBeforeNoDownstream() {
        BadParameterException e = assertThrows(BadParameterException.class, () -> controller.fanout(request("calls=0")));
        assertEquals("calls must be an integer from 1 to 10000, got \"0\"", e.getMessage());
    }
}
