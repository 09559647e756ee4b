package io.threadbench.server.reactive;

import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.threadbench.server.Database;
import io.threadbench.server.IntParam;
import io.threadbench.server.TargetInfo;
import io.threadbench.server.WorkResponse;

/**
 * ReactiveDatabaseController serves {@code /api/db} in the reactive model:
 * the same JDBC query on HikariCP as the servlet models, wrapped on
 * boundedElastic as a WebFlux user wraps a blocking driver.
 */
@RestController
@RequestMapping("/api")
@ConditionalOnWebApplication(type = Type.REACTIVE)
public class ReactiveDatabaseController {

    private final String target;
    private final Database database;

    /** ReactiveDatabaseController answers as {@code info.target()} and queries {@code database}. */
    public ReactiveDatabaseController(TargetInfo info, Database database) {
        this.target = info.target();
        this.database = database;
    }

    /** db sleeps {@code delay} ms in the database, then reads a row, on one connection of the pool. */
    @GetMapping("/db")
    public Mono<WorkResponse> db(ServerHttpRequest request) {
        int delayMs = IntParam.DELAY.parse(request.getURI().getRawQuery());
        return Blocking.call(() -> {
            Database.Row row = database.row(delayMs);
            return WorkResponse.of(target, "db", delayMs).withRow(row);
        });
    }
}
