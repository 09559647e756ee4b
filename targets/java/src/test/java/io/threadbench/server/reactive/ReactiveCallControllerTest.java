package io.threadbench.server.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import io.threadbench.server.BadParameterException;
import io.threadbench.server.Downstream;
import io.threadbench.server.DownstreamException;
import io.threadbench.server.TargetInfo;

/** ReactiveCallControllerTest covers a reactive target started without DOWNSTREAM_URL, which ReactiveTest's has. */
class ReactiveCallControllerTest {

    private final Downstream none = new Downstream("");
    private final ReactiveCallController controller = new ReactiveCallController(TargetInfo.from(new MockEnvironment()),
            none, new ReactiveDownstream(none));

    private static MockServerHttpRequest request(String pathAndQuery) {
        return MockServerHttpRequest.get(pathAndQuery).build();
    }

    @Test
    void noDownstreamIs503BeforeAnyCall() {
        DownstreamException fanout = assertThrows(DownstreamException.class, () -> controller.fanout(request("/api/fanout")));
        DownstreamException downstream = assertThrows(DownstreamException.class,
                () -> controller.downstream(request("/api/downstream?duration=5")));
        DownstreamException bulkheaded = assertThrows(DownstreamException.class,
                () -> controller.downstream(request("/api/downstream?limit=2")));
        for (DownstreamException e : new DownstreamException[] {fanout, downstream, bulkheaded}) {
            assertEquals(HttpStatus.SERVICE_UNAVAILABLE, e.status());
            assertEquals("no downstream is configured: set DOWNSTREAM_URL", e.getMessage());
        }
    }

    @Test
    void badParameterBeforeNoDownstream() {
        BadParameterException e = assertThrows(BadParameterException.class,
                () -> controller.downstream(request("/api/downstream?timeout=0&duration=abc")));
        assertEquals("duration must be an integer from 0 to 60000, got \"abc\"", e.getMessage());
    }
}
