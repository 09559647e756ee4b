package io.threadbench.server;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * DatabaseController serves {@code /api/db} in the servlet models: one query
 * on a pooled connection per request, on whatever thread the target gives
 * the request.
 */
@RestController
@RequestMapping("/api")
@ConditionalOnWebApplication(type = Type.SERVLET)
public class DatabaseController {

    private final String target;
    private final Database database;

    /** DatabaseController answers as {@code info.target()} and queries {@code database}. */
    public DatabaseController(TargetInfo info, Database database) {
        this.target = info.target();
        this.database = database;
    }

    /** db sleeps {@code delay} ms in the database, then reads a row, on one connection of the pool. */
    @GetMapping("/db")
    public WorkResponse db(HttpServletRequest request) {
        int delayMs = IntParam.DELAY.parse(request.getQueryString());
        Database.Row row = database.row(delayMs);
        return WorkResponse.of(target, "db", delayMs).withRow(row);
    }
}
