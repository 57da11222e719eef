package org.vtvr.error;

/** A request parameter or body the service refuses; mapped to 400 problem+json. */
public class BadInputException extends RuntimeException {

    public BadInputException(String detail) {
        super(detail, null, false, false);
    }
}
