package org.vtvr.api;

/** The checkout request body; {@code Limits.order} validates it against the bounds below. */
public record OrderRequest(String customer, String sku, Integer quantity) {

    /** Longest accepted customer and sku. */
    public static final int MAX_TEXT = 100;
    public static final int MIN_QUANTITY = 1;
    public static final int MAX_QUANTITY = 1000;

    /** The shape named in every error about the body. */
    public static final String SHAPE = "{\"customer\": text, \"sku\": text, \"quantity\": " + MIN_QUANTITY + ".."
            + MAX_QUANTITY + "}";
}
