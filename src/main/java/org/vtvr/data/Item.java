package org.vtvr.data;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A seeded row read by the db scenario; ids run 1..bench.rows. */
@Entity
@Table(name = "items")
public class Item {

    @Id
    public Long id;

    public String name;

    public int price;
}
