package org.vtvr.data;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.vtvr.api.OrderRequest;
import org.vtvr.api.Result;
import org.vtvr.scenario.Mode;

import java.time.Instant;

/** An order written by the checkout scenario; the same table for the blocking and the reactive side. */
@Entity
@Table(name = "orders")
public class PurchaseOrder {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(nullable = false, length = OrderRequest.MAX_TEXT)
    public String customer;

    @Column(nullable = false, length = OrderRequest.MAX_TEXT)
    public String sku;

    public int quantity;

    @Column(nullable = false, length = 16)
    public String mode;

    @Column(nullable = false)
    public Instant createdAt;

    public static PurchaseOrder from(OrderRequest request, Mode mode) {
        PurchaseOrder order = new PurchaseOrder();
        order.customer = request.customer();
        order.sku = request.sku();
        order.quantity = request.quantity();
        order.mode = mode.path();
        order.createdAt = Instant.now();
        return order;
    }

    public Result.Order view() {
        return new Result.Order(id, customer, sku, quantity, mode);
    }
}
