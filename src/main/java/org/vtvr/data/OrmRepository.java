package org.vtvr.data;

import io.quarkus.hibernate.orm.panache.Panache;
import io.quarkus.logging.Log;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import org.hibernate.Session;
import org.vtvr.http.Arrival;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

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

    /**
     * Holds one pooled connection for {@code ms} inside the database server. The statement is cancelled (Connector/J
     * sends {@code KILL QUERY}) when the client hangs up: an interrupt does not end a socket read of a platform thread.
     * The same prepared statement as a native query sends (EqualWorkTest).
     */
    public void sleep(int ms) {
        Panache.getEntityManager().unwrap(Session.class).doWork(connection -> {
            try (PreparedStatement sleep = connection.prepareStatement("SELECT SLEEP(?)");
                    Arrival.Registration cancel = Arrival.onCancel(() -> cancel(sleep))) {
                sleep.setDouble(1, ms / 1000.0);
                sleep.executeQuery().close();
            }
        });
    }

    private static void cancel(Statement statement) {
        try {
            statement.cancel();
        } catch (SQLException e) {
            Log.debugf(e, "cancelling a statement after a hang-up failed");
        }
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
