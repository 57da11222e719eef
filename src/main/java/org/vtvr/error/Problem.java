package org.vtvr.error;

/** An RFC 9457 problem body ({@code application/problem+json}); never carries a stack trace. */
public record Problem(String type, String title, int status, String detail, String instance) {

    public static final String MEDIA_TYPE = "application/problem+json";
}
