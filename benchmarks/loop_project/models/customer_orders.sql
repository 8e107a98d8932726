{{ config(materialized='view') }}
select c.id, c.name, count(o.order_id) as orders, sum(o.amount) as amount
from {{ ref('customers') }} c left join {{ ref('orders') }} o on o.customer_id = c.id
group by c.id, c.name
