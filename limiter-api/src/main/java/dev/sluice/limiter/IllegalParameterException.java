package dev.sluice.limiter;

import java.util.Objects;

/**
 * An {@link IllegalArgumentException} that names the parameter it is about, e.g. {@code "windowMillis"}, so
 * that a layer above (a properties reader, a Spring binder) can point at its own name for that parameter
 * without reading the message.
 */
public final class IllegalParameterException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String parameter;

    public IllegalParameterException(String parameter, String message) {
        super(message);
        this.parameter = Objects.requireNonNull(parameter, "parameter");
    }

    /** The parameter whose value broke the rule (for a rule over two parameters, the first named). */
    public String parameter() {
        return parameter;
    }
}
