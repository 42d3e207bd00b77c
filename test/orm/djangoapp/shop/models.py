from django.db import models


class Customer(models.Model):
    name = models.TextField()                   # AutoField: serial, unchanged


class Order(models.Model):
    # snowflake IDs since migration 0002: the database fills the key and
    # Django reads it back with INSERT ... RETURNING "shop_order"."id"
    id = models.BigAutoField(primary_key=True)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT)
    placed_at = models.DateTimeField(auto_now_add=True)

    def as_json(self):
        # 64-bit keys go out as strings: JavaScript numbers are exact only
        # up to 2^53
        return {"id": str(self.id), "customer_id": self.customer_id}


class OrderLine(models.Model):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="lines")
    sku = models.TextField()
