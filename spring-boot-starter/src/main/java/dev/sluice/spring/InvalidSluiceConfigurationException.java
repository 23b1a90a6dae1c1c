package dev.sluice.spring;

/**
 * A {@code sluice.*} property (or a {@link RateLimited} use) that cannot work; the message names the property,
 * its value and what is allowed. Spring Boot reports it at start-up as the reason the application did not start.
 */
public class InvalidSluiceConfigurationException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public InvalidSluiceConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
