package io.threadbench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.mock.web.MockHttpServletRequest;

/** DatabaseControllerTest covers /api/db on a target started without DB_KIND, which the booted contract tests are too. */
class DatabaseControllerTest {

    private final DatabaseController controller = new DatabaseController(TargetInfo.from(new MockEnvironment()),
            Database.none());

    private static MockHttpServletRequest request(String query) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/db");
        request.setQueryString(query);
        return request;
    }

    @Test
    void noDatabaseIs503() {
        DatabaseException e = assertThrows(DatabaseException.class, () -> controller.db(request("delay=5")));
        assertEquals("no database configured (DB_KIND)", e.getMessage());
    }

    @Test
    void badParameterBeforeNoDatabase() {
        for (String[] bad : new String[][] {
                {"delay=-1", "delay must be an integer from 0 to 60000, got \"-1\""},
                {"delay=60001", "delay must be an integer from 0 to 60000, got \"60001\""},
                {"delay=abc", "delay must be an integer from 0 to 60000, got \"abc\""},
                {"delay=1&delay=2", "delay must be an integer from 0 to 60000, got 2 values"}}) {
            BadParameterException e = assertThrows(BadParameterException.class, () -> controller.db(request(bad[0])));
            assertEquals(bad[1], e.getMessage(), bad[0]);
        }
    }
}
