package org.vtvr.error;

/** A resource that does not exist (an unknown order id); mapped to 404 problem+json. */
public class NotFoundProblem extends RuntimeException {

    public NotFoundProblem(String detail) {
        super(detail, null, false, false);
    }
}
