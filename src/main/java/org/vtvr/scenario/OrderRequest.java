package org.vtvr.scenario;

/** The checkout request body; {@link Limits#order} validates it. */
public record OrderRequest(String customer, String sku, Integer quantity) {
}
