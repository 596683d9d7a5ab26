"""`utils.data`: TensorDataset and a single-process DataLoader, as PyTorch's.

`DataLoader(dataset, batch_size=1, shuffle=False, drop_last=False)` yields batches collated
as PyTorch's default_collate collates a tuple of tensors: a list with one stacked tensor per
field. With `shuffle=True` the order is PyTorch's bit for bit after the same `manual_seed`:
each pass draws the loader's base seed and then the sampler's seed from the global generator
(two 64-bit draws), and permutes with a generator seeded by the latter (RandomSampler).
"""

from .. import _messages as msg
from .. import random as _random
from ..tensor import Tensor


class Dataset:
    """The base class of map-style datasets: `__getitem__` and `__len__`."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class TensorDataset(Dataset):
    """Sample i is `tuple(t[i] for t in tensors)`; the tensors share their first dimension."""

    def __init__(self, *tensors):
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError(msg.DATASET_SIZE_MISMATCH)
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class DataLoader:
    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        generator=None,
        **kwargs,
    ):
        outside = {"sampler": sampler, "batch_sampler": batch_sampler, "generator": generator}
        outside.update(kwargs)
        for name, value in outside.items():
            if value is not None:
                raise NotImplementedError(f"DataLoader({name}=...) is outside the course subset")
        if num_workers or collate_fn is not None or worker_init_fn is not None:
            raise NotImplementedError("DataLoader runs in this process with default collation")
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0
        ):
            raise ValueError(msg.BATCH_SIZE.format(batch_size))
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = bool(shuffle)
        self.drop_last = drop_last
        self.generator = None
        self.num_workers = 0

    def __len__(self):
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        _random.random_int64()  # the iterator's base seed (for workers), drawn as PyTorch does
        n = len(self.dataset)
        if self.shuffle:
            stream = _random._CPUStream(_random.random_int64())  # RandomSampler's generator
            order = _random.randperm(n, stream).tolist()
        else:
            order = range(n)
        if self.batch_size is None:
            for i in order:
                yield _collate_one(self.dataset[i])
            return
        batch = []
        for i in order:
            batch.append(self.dataset[i])
            if len(batch) == self.batch_size:
                yield _collate(batch)
                batch = []
        if batch and not self.drop_last:
            yield _collate(batch)


def _collate(samples):
    """default_collate of a batch: tensors stacked, tuples collated field by field (a list)."""
    from ..ops.joining import stack

    first = samples[0]
    if isinstance(first, Tensor):
        return stack(samples)
    if isinstance(first, (tuple, list)):
        return [_collate(list(field)) for field in zip(*samples)]
    raise NotImplementedError("default_collate of anything but tensors is outside the subset")


def _collate_one(sample):
    """default_convert (batch_size=None): a tuple of tensors becomes a list, tensors stay."""
    return list(sample) if isinstance(sample, tuple) else sample
