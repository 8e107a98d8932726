"""The `pipeline.py` of the cluster example in docs/deployments.md, run by test_cluster.py as a separate process
(`SPARKLOAD_MASTER=spark://... python pipeline.py`): lands the walking skeleton's two loads into the
dataset named on the command line through a session on that master, then prints the app id."""
import sys

import python_extract as sl
from tests.support.skeleton import LOAD_1, LOAD_2

dataset = sys.argv[1]
pipeline = sl.pipeline(pipeline_name=dataset, dataset_name=dataset)
for load in (LOAD_1, LOAD_2):
    print(pipeline.run(load, table_name="customers", write_disposition="merge", primary_key="id"), flush=True)
print(f"master {pipeline.spark.sparkContext.master} app id {pipeline.spark.sparkContext.applicationId}")
