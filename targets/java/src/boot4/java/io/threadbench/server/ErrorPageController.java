package io.threadbench.server;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.web.bind.annotation.RestController;

/** ErrorPageController is Boot's error controller in the servlet models: {@link ErrorPages} on Spring Boot 4.x. */
@RestController
@ConditionalOnWebApplication(type = Type.SERVLET)
public class ErrorPageController extends ErrorPages implements ErrorController {
}
