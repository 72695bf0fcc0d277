import CAirgap
