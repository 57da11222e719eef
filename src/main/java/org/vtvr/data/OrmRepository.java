package org.vtvr.data;

import io.quarkus.hibernate.orm.panache.Panache;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.util.Optional;

/** Blocking data access (Hibernate ORM Panache over JDBC), shared by the virtual and worker modes. */
@ApplicationScoped
public class OrmRepository {

    /**
     * One SELECT per call, also for an id this request already read: the reactive side opens a session per query, so
     * a repeated id must not be answered from this request's session cache (EqualWorkTest saw 49 against 50 reads).
     */
    public int itemPrice(long id) {
        var em = Panache.getEntityManager();
        Item item = em.find(Item.class, id);
        em.detach(item);
        return item.price;
    }

    /** Holds one pooled connection for {@code ms} inside the database server. */
    public void sleep(int ms) {
        Panache.getEntityManager().createNativeQuery("SELECT SLEEP(?1)")
                .setParameter(1, ms / 1000.0)
                .getSingleResult();
    }

    /**
     * One autocommitted INSERT: the JTA transaction only satisfies Hibernate, the connection is not enlisted
     * ({@code quarkus.datasource.jdbc.transactions=disabled}), as on the reactive side (docs/equal-work.md).
     */
    @Transactional
    public PurchaseOrder save(PurchaseOrder order) {
        Panache.getEntityManager().persist(order);
        return order;
    }

    public Optional<PurchaseOrder> findOrder(long id) {
        return Optional.ofNullable(Panache.getEntityManager().find(PurchaseOrder.class, id));
    }
}
