package org.vtvr.error;

/** An RFC 9457 problem body ({@code application/problem+json}); never carries a stack trace. */
public record Problem(String type, String title, int status, String detail, String instance) {

    public static final String MEDIA_TYPE = "application/problem+json";

    static final String TYPE_PREFIX = "urn:vtvr:problem:";

    /** A status with no {@link ProblemType} of its own (405, 406, 415, ...): type {@code http-<status>}. */
    public static Problem http(int status, String reason, String detail, String instance) {
        return new Problem(TYPE_PREFIX + "http-" + status, reason, status, detail, instance);
    }

    /** The instance member: the path alone, clipped, as the target itself may be what was too long. */
    public static String instance(String path) {
        String normalized = "/" + path.replaceFirst("^/+", "");
        return normalized.length() <= 200 ? normalized : normalized.substring(0, 200) + "...";
    }
}
