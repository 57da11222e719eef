package org.vtvr.error;

/** An RFC 9457 problem body ({@code application/problem+json}); never carries a stack trace. */
public record Problem(String type, String title, int status, String detail, String instance) {

    public static final String MEDIA_TYPE = "application/problem+json";

    /** A problem whose type is {@code urn:vtvr:problem:<kind>}. */
    public static Problem of(int status, String kind, String title, String detail, String instance) {
        return new Problem("urn:vtvr:problem:" + kind, title, status, detail, instance);
    }
}
