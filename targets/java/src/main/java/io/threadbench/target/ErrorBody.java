package io.threadbench.target;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** ErrorBody is the contract's error response: {"status":400,"error":"..."}. */
@JsonPropertyOrder({"status", "error"})
public record ErrorBody(int status, String error) {
}
