package org.vtvr.api;

/** The checkout request body; {@code Limits.order} validates it against the bounds below. */
public record OrderRequest(String customer, String sku, Integer quantity) {

    /** Longest accepted customer and sku, in Unicode characters (code points): the orders columns' VARCHAR(100). */
    public static final int MAX_TEXT = 100;
    /**
     * A text must contain a character other than space, tab, CR and LF: the same regular expression in Java, in the
     * OpenAPI document's {@code pattern} and in a client's JSON Schema validator (classes like {@code \\s} differ).
     */
    public static final String TEXT_PATTERN = "[^ \t\r\n]";
    public static final int MIN_QUANTITY = 1;
    public static final int MAX_QUANTITY = 1000;

    /** A body that passes every check, as load scripts send it ({@code GET /scenarios} lists it for checkout). */
    public static final String EXAMPLE = "{\"customer\":\"alice\",\"sku\":\"SKU-1\",\"quantity\":2}";

    /** The shape named in every error about the body. */
    public static final String SHAPE = "{\"customer\": text, \"sku\": text, \"quantity\": " + MIN_QUANTITY + ".."
            + MAX_QUANTITY + "}";
}
