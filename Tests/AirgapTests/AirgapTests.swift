import Airgap
