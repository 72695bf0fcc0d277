import HTTPMock
