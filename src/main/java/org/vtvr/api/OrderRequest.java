package org.vtvr.api;

import org.vtvr.limits.Limits;

/** The checkout request body; {@link Limits#order} validates it. */
public record OrderRequest(String customer, String sku, Integer quantity) {
}
