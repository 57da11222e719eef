package org.vtvr.data;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** Non-blocking data access (Hibernate Reactive Panache over the Vert.x MySQL client) for the reactive mode. */
@ApplicationScoped
public class ReactiveRepository {

    public Uni<Integer> itemPrice(long id) {
        return Panache.withSession(() -> Panache.getSession().flatMap(s -> s.find(Item.class, id)))
                .map(item -> item.price);
    }

    public Uni<Void> sleep(int ms) {
        return Panache.withSession(() -> Panache.getSession().flatMap(s -> s.createNativeQuery("SELECT SLEEP(?1)")
                .setParameter(1, ms / 1000.0)
                .getSingleResult()))
                .replaceWithVoid();
    }

    /** One autocommitted INSERT, as on the blocking side (docs/equal-work.md "Transactions"). */
    public Uni<PurchaseOrder> save(PurchaseOrder order) {
        return Panache.withSession(() -> Panache.getSession().flatMap(s -> s.persist(order).call(s::flush)))
                .replaceWith(order);
    }

    public Uni<PurchaseOrder> findOrder(long id) {
        return Panache.withSession(() -> Panache.getSession().flatMap(s -> s.find(PurchaseOrder.class, id)));
    }
}
